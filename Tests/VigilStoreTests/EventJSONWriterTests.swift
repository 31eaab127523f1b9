import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport

@Suite("Event JSON writer: the same JSON as the schema's Codable encoding, faster")
struct EventJSONWriterTests {
    private static let time = SampleEvents.time
    private static let stack = [Address(0x1_0223_1a40), Address(0), Address(UInt64.max)]

    /// A span with every optional field set.
    private static let fullSpan = SpanPayload(traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7",
                                              parentSpanId: "00f067aa0ba902b8", name: "ble.connect", kind: .client,
                                              start: time, end: SampleEvents.time(plusMilliseconds: 800), status: .error,
                                              statusMessage: "timeout", attributes: ["s": "x", "i": -7, "d": 0.25, "b": true])

    /// One event of every type with every optional field set, so that every property the
    /// schema has appears in the output.
    static let fullEvents: [Event] = {
        let payloads: [EventPayload] = [
            .hang(HangPayload(start: time, end: SampleEvents.time(plusMilliseconds: 2500), durationMs: 2500.5, kind: .fatal,
                              thresholdMs: 2000, runLoopActivity: "beforeSources",
                              stacks: [StackCount(frames: stack, count: 3)], hotStack: stack, sampleCount: 50,
                              cpuPercent: 97.5, memoryBytes: UInt64.max)),
            .frames(FramesPayload(page: "Home", windowStart: time, windowEnd: SampleEvents.time(plusMilliseconds: 1000), frames: 52,
                                  fps: 51.75, refreshRate: 120, dropped: 8, slow: 1, severe: 1, frozen: 1,
                                  durationMs: 812.125, stack: stack,
                                  frozenFrames: [FrozenFrame(start: time, durationMs: 812.125, stack: stack)])),
            .launch(LaunchPayload(kind: .cold, processStart: time, preMainMs: 310.5, mainToDidFinishMs: 420,
                                  ttidMs: 980, ttfdMs: 1450, pageFaults: 5120, majorPageFaults: 12,
                                  traceId: "4bf92f3577b34da6a3ce929d0e0e4736", tasks: [fullSpan])),
            .network(NetworkPayload(method: "GET", urlTemplate: "https://api.example.com/users/:id", host: "api.example.com",
                                    status: 503, error: "timed out", bytesSent: Int64.min, bytesReceived: Int64.max,
                                    timings: NetworkTimings(dns: 1, connect: 2.5, tls: 3, request: 0.001, ttfb: 120,
                                                            response: 20, total: 146.501),
                                    reusedConnection: true, protocol: "h2", traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
                                    spanId: "00f067aa0ba902b7", requestHeaders: ["accept": "application/json"],
                                    responseHeaders: ["x-request-id": "r-1", "cache-control": "no-store"])),
            .crash(CrashPayload(signal: "SIGSEGV", code: "SEGV_MAPERR", faultAddress: Address(0x10),
                                exception: CrashException(type: "NSInvalidArgumentException", reason: "bad\n\"arg\"",
                                                          frames: [Address(0x1_0223_1200), Address(0x1_0223_1400)]),
                                threads: [CrashThread(crashed: true, name: "main", frames: stack)],
                                registers: ["pc": Address(0x1000), "sp": Address(0x2000)], fatalHang: true,
                                terminationReason: "0x8badf00d")),
            .resource(ResourcePayload(cpuPercent: 35.5, threads: [ThreadUsage(name: "main", id: 259, cpuPercent: 30)],
                                      memoryBytes: 210_000_000, rssBytes: 250_000_000, pssBytes: 200_000_000,
                                      cpuBlock: CPUBlock(windowMs: 60_000, averagePercent: 85, thresholdPercent: 80))),
            .span(fullSpan),
            .log(LogPayload(level: .fatal, message: "line 1\nline 2\t\u{1}\u{2028} ünïcødé 🚀 \\ \" /",
                            attributes: ["attempt": 2, "ratio": 1e-7, "big": 1e300, "name": "x"])),
            .session(SessionPayload(start: time, end: SampleEvents.time(plusMilliseconds: 90_000), durationMs: 90_000.5,
                                    foregroundMs: 61_250.25, outcome: .backgroundKilled,
                                    reasons: ["no crash report", "last seen in the \"background\""], lastAppState: "background")),
        ]
        return payloads.enumerated().map { index, payload in
            Event(id: UUID(uuidString: String(format: "8E1B2C3D-0000-4000-8000-%012X", index))!, time: time,
                  session: UUID(uuidString: "0F4B5C4E-7D33-4C4A-9B8E-2F7D4E1C0A01")!, app: SampleEvents.app,
                  device: SampleEvents.device, context: EventContext(page: "Checkout", appState: "foreground", network: "wifi"),
                  tags: ["experiment": "b", "quote\"d": "back\\slash"],
                  images: [SampleEvents.mainImage, SampleEvents.systemImage],
                  install: UUID(uuidString: "6A1F0C2E-5B7D-4E8A-9C3B-1D2E3F405162")!,
                  user: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", payload: payload)
        }
    }()

    private func object(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test("decodes to an equal event and matches the Codable JSON object for object",
          arguments: fullEvents + SampleEvents.oneOfEach())
    func matchesCodable(event: Event) throws {
        let fast = EventJSONWriter.encode(event)
        #expect(try EventJSON.decode(fast) == event)
        #expect(try object(fast) == object(EventJSON.encode(event)))
        #expect(!fast.contains(0x0A))
    }

    @Test("a minimal event (no optionals, empty tags) matches too")
    func minimal() throws {
        let event = Event(time: Self.time, session: UUID(), app: SampleEvents.app, device: SampleEvents.device,
                          payload: .log(LogPayload(level: .info, message: "")))
        #expect(try object(EventJSONWriter.encode(event)) == object(EventJSON.encode(event)))
    }

    @Test("numbers at the edges and non-finite values encode like JSONEncoder",
          arguments: [0.0, -0.0, 0.1, 1e-7, 1e15, 1e16, -123456789.125, .leastNonzeroMagnitude, Double.greatestFiniteMagnitude,
                      .nan, .infinity, -.infinity, 2500, -3])
    func numbers(value: Double) throws {
        let event = Event(time: Self.time, session: UUID(), app: SampleEvents.app, device: SampleEvents.device,
                          payload: .resource(ResourcePayload(cpuPercent: value, memoryBytes: 1)))
        let fast = try object(EventJSONWriter.encode(event))
        let codable = try object(EventJSON.encode(event))
        let fastValue = (fast["payload"] as? NSDictionary)?["cpuPercent"]
        let codableValue = (codable["payload"] as? NSDictionary)?["cpuPercent"]
        #expect("\(fastValue ?? "missing")" == "\(codableValue ?? "missing")")
    }

    /// Every stored property of `value`, by name (`Mirror` sees what the type declares, so a
    /// property added to the schema shows up here whether or not the writer knows it).
    private func properties(_ value: Any) -> Set<String> {
        Set(Mirror(reflecting: value).children.compactMap(\.label))
    }

    @Test("every property of every schema type appears in the output (a new schema field fails here until the writer writes it)")
    func noPropertyForgotten() throws {
        for event in Self.fullEvents {
            let json = try object(EventJSONWriter.encode(event))
            #expect(Set(json.allKeys as? [String] ?? []) == properties(event).union(["type"]))
            #expect(Set((json["app"] as? NSDictionary)?.allKeys as? [String] ?? []) == properties(event.app))
            #expect(Set((json["device"] as? NSDictionary)?.allKeys as? [String] ?? []) == properties(event.device))
            #expect(Set((json["context"] as? NSDictionary)?.allKeys as? [String] ?? []) == properties(event.context))
            let image = try #require((json["images"] as? [NSDictionary])?.first)
            #expect(Set(image.allKeys as? [String] ?? []) == properties(SampleEvents.mainImage))
            let payload = try #require(json["payload"] as? NSDictionary)
            let keys = Set(payload.allKeys as? [String] ?? [])
            switch event.payload {
            case .hang(let body):
                #expect(keys == properties(body))
                let stack = try #require((payload["stacks"] as? [NSDictionary])?.first)
                #expect(Set(stack.allKeys as? [String] ?? []) == properties(body.stacks[0]))
            case .frames(let body):
                #expect(keys == properties(body))
                let frozen = try #require((payload["frozenFrames"] as? [NSDictionary])?.first)
                #expect(Set(frozen.allKeys as? [String] ?? []) == properties(body.frozenFrames![0]))
            case .launch(let body):
                #expect(keys == properties(body))
            case .network(let body):
                #expect(keys == properties(body))
                #expect(Set((payload["timings"] as? NSDictionary)?.allKeys as? [String] ?? []) == properties(body.timings))
            case .crash(let body):
                #expect(keys == properties(body))
                #expect(Set((payload["exception"] as? NSDictionary)?.allKeys as? [String] ?? []) == properties(body.exception!))
                let thread = try #require((payload["threads"] as? [NSDictionary])?.first)
                #expect(Set(thread.allKeys as? [String] ?? []) == properties(body.threads[0]))
            case .resource(let body):
                #expect(keys == properties(body))
                #expect(Set((payload["cpuBlock"] as? NSDictionary)?.allKeys as? [String] ?? []) == properties(body.cpuBlock!))
                let thread = try #require((payload["threads"] as? [NSDictionary])?.first)
                #expect(Set(thread.allKeys as? [String] ?? []) == properties(body.threads![0]))
            case .span(let body):
                #expect(keys == properties(body))
            case .log(let body):
                #expect(keys == properties(body))
            case .session(let body):
                #expect(keys == properties(body))
            }
        }
    }

    @Test("random strings of any Unicode, control characters included, survive the round trip", arguments: 0..<8)
    func strings(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<200 {
            let pick = generator.next() % 4
            let value: UInt32
            switch pick {
            case 0: value = UInt32(generator.next() % 0x20)
            case 1: value = UInt32(0x20 + generator.next() % 0x60)
            case 2: value = UInt32(0xA0 + generator.next() % 0xD700)
            default: value = UInt32(0x1F300 + generator.next() % 0x300)
            }
            if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
        }
        let text = String(scalars)
        let event = Event(time: Self.time, session: UUID(), app: AppInfo(id: text, version: "1", build: "1"),
                          device: SampleEvents.device, tags: [text: text],
                          payload: .log(LogPayload(level: .info, message: text, attributes: [text: .string(text)])))
        #expect(try EventJSON.decode(EventJSONWriter.encode(event)) == event)
    }
}
