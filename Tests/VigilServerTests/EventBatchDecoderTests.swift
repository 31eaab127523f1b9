import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// The tape decoder must agree with `EventJSON.decodeBatch` (the reference) on every body.
@Suite("event batch decoder")
struct EventBatchDecoderTests {
    @Test("the ASCII check finds a high byte at any position of bodies of every length around a word")
    func asciiCheck() {
        for length in 0..<40 {
            let ascii = Data((0..<length).map { UInt8(0x20 + $0 % 0x5F) })
            #expect(EventIngestor.isASCII(ascii), "length \(length)")
            for position in 0..<length {
                for high: UInt8 in [0x80, 0xC3, 0xFF] {
                    var body = ascii
                    body[position] = high
                    #expect(!EventIngestor.isASCII(body), "length \(length), 0x\(String(high, radix: 16)) at \(position)")
                }
            }
        }
        // A slice that does not start at the buffer's beginning (unaligned words).
        let padded = Data([0xFF] + Array("ascii text of thirty-one bytes.".utf8))
        #expect(EventIngestor.isASCII(padded.dropFirst()))
    }

    /// Both decoders' outcomes side by side: decoded events must be equal, rejections must
    /// have the same index and id.
    private func expectAgreement(_ body: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = Result { try EventJSON.decodeBatch(body) }
        let tape = Result { try EventBatchDecoder.decode(body) }
        switch (reference, tape) {
        case (.failure, .failure):
            return
        case (.success(let expected), .success(let actual)):
            #expect(expected.count == actual.count, sourceLocation: sourceLocation)
            for (left, right) in zip(expected, actual) {
                switch (left, right) {
                case (.success(let event), .success(let decoded)):
                    #expect(event == decoded.event, sourceLocation: sourceLocation)
                case (.failure(let failure), .failure(let rejection)):
                    #expect(failure.index == rejection.index, sourceLocation: sourceLocation)
                    #expect(failure.id == rejection.id, sourceLocation: sourceLocation)
                default:
                    Issue.record("decoders disagree: \(left) vs \(right) for \(String(decoding: body.prefix(300), as: UTF8.self))",
                                 sourceLocation: sourceLocation)
                }
            }
        default:
            Issue.record("one decoder rejected the whole body: \(reference) vs \(tape)", sourceLocation: sourceLocation)
        }
    }

    private static func sampleObjects() throws -> [[String: Any]] {
        try EventType.allCases.flatMap { type in
            try (0..<3).map { index in
                try JSONSerialization.jsonObject(with: EventJSON.encode(SampleEvents.make(type, index: index))) as! [String: Any]
            }
        }
    }

    @Test("every sample event decodes identically, as an array and as JSON lines")
    func samplesAgree() throws {
        let events = EventType.allCases.flatMap { type in (0..<5).map { SampleEvents.make(type, index: $0) } }
        try expectAgreement(try EventJSON.makeEncoder().encode(events))
        try expectAgreement(try EventJSON.encodeLines(events))
        let decoded = try EventBatchDecoder.decode(try EventJSON.makeEncoder().encode(events))
        #expect(decoded.compactMap { try? $0.get().event } == events)
    }

    @Test("every well-formed sample takes the direct path and equals Decodable's result")
    func fastPathCoversSamples() throws {
        var events = EventType.allCases.flatMap { type in (0..<12).map { SampleEvents.make(type, index: $0) } }
        // Optional parts present, absent and null-able: frozen frames, launch tasks, registers, resource blocks.
        if case .frames(var frames) = events[12].payload {
            frames.frozenFrames = [FrozenFrame(start: SampleEvents.time, durationMs: 900, stack: [Address(1), Address(2)])]
            frames.stack = [Address(3)]
            events[12].payload = .frames(frames)
        }
        if case .launch(var launch) = events[24].payload, case .span(let span) = SampleEvents.make(.span, index: 2).payload {
            launch.tasks = [span]
            launch.traceId = span.traceId
            events[24].payload = .launch(launch)
        }
        if case .resource(var resource) = events[60].payload {
            resource.cpuBlock = CPUBlock(windowMs: 5000, averagePercent: 91, thresholdPercent: 80)
            events[60].payload = .resource(resource)
        }
        for event in events {
            let tape = try JSONTape(bytes: Array(try EventJSON.encode(event)))
            let fast = try EventFastReader(tape: tape).event(0)
            #expect(fast == event, "\(event.type)")
            #expect(fast == (try JSONTapeDecoder.decode(Event.self, from: tape)))
        }
    }

    @Test("the direct path never accepts what Decodable refuses, nor decodes it differently", arguments: 0..<mutations.count)
    func fastPathIsConservative(mutation: Int) throws {
        var objects = try Self.sampleObjects()
        for index in objects.indices { Self.mutations[mutation].1(&objects[index]) }
        for object in objects {
            let tape = try JSONTape(bytes: Array(try JSONSerialization.data(withJSONObject: object)))
            guard let fast = try? EventFastReader(tape: tape).event(0) else { continue }
            #expect(fast == (try JSONTapeDecoder.decode(Event.self, from: tape)), "\(Self.mutations[mutation].0)")
        }
    }

    @Test("raw sub-documents are the exact JSON that was sent")
    func rawSlices() throws {
        let body = Data(#"[{"schema":1,"id":"00000000-0000-4000-8000-0000000000a1","type":"log","time":"2026-11-29T20:48:43.123Z","session":"0F4B5C4E-7D33-4C4A-9B8E-2F7D4E1C0A01","app":{"id":"a","version":"1","build":"1"},"device":{"model":"m","os":"iOS","osVersion":"18","arch":"arm64"},"tags":{ "k" : "v\u00e9" },"payload":{"level":"info","message":"x","extra":[1,2]}}]"#.utf8)
        let decoded = try #require(try EventBatchDecoder.decode(body).first?.get())
        #expect(decoded.rawTags == #"{ "k" : "v\u00e9" }"#)
        #expect(decoded.rawPayload == #"{"level":"info","message":"x","extra":[1,2]}"#)
        #expect(decoded.rawImages == nil)
        #expect(decoded.sentID == "00000000-0000-4000-8000-0000000000a1")
        #expect(decoded.event.tags == ["k": "vé"])
    }

    /// Field edits that each decoder must judge the same way.
    static let mutations: [(String, @Sendable (inout [String: Any]) -> Void)] = [
        ("missing id", { $0["id"] = nil }),
        ("bad id", { $0["id"] = "not-a-uuid" }),
        ("numeric id", { $0["id"] = 42 }),
        ("unknown type", { $0["type"] = "telemetry" }),
        ("bad time", { $0["time"] = "yesterday" }),
        ("time with offset", { $0["time"] = "2026-11-29T21:48:43.5+01:00" }),
        ("null app", { $0["app"] = NSNull() }),
        ("schema zero", { $0["schema"] = 0 }),
        ("schema as double", { $0["schema"] = 1.0 }),
        ("schema fractional", { $0["schema"] = 1.5 }),
        ("schema huge", { $0["schema"] = 1e40 }),
        ("extra fields", { $0["future"] = ["nested": [1, 2, 3]] }),
        ("null tags", { $0["tags"] = NSNull() }),
        ("tags with number", { $0["tags"] = ["a": 1] }),
        ("context null page", { $0["context"] = ["page": NSNull()] }),
        ("payload string", { $0["payload"] = "x" }),
        ("payload missing", { $0["payload"] = nil }),
        ("payload emptied", { $0["payload"] = [String: Any]() }),
        ("images wrong", { $0["images"] = [["name": "x"]] }),
        ("images address number", { value in
            if var images = value["images"] as? [[String: Any]], !images.isEmpty {
                images[0]["loadAddress"] = 4_096
                value["images"] = images
            }
        }),
        ("images address negative", { value in
            if var images = value["images"] as? [[String: Any]], !images.isEmpty {
                images[0]["loadAddress"] = -1
                value["images"] = images
            }
        }),
        ("payload field to null", { value in
            if var payload = value["payload"] as? [String: Any], let key = payload.keys.sorted().first {
                payload[key] = NSNull()
                value["payload"] = payload
            }
        }),
        ("payload field to string", { value in
            if var payload = value["payload"] as? [String: Any], let key = payload.keys.sorted().last {
                payload[key] = "oops"
                value["payload"] = payload
            }
        }),
        ("payload field to array", { value in
            if var payload = value["payload"] as? [String: Any], let key = payload.keys.sorted().dropFirst().first {
                payload[key] = [1]
                value["payload"] = payload
            }
        }),
    ]

    @Test("hostile field edits are judged the same by both decoders", arguments: 0..<mutations.count)
    func mutationsAgree(mutation: Int) throws {
        var objects = try Self.sampleObjects()
        for index in objects.indices { Self.mutations[mutation].1(&objects[index]) }
        let array = try JSONSerialization.data(withJSONObject: objects)
        try expectAgreement(array)
        var lines = Data()
        for object in objects {
            lines.append(try JSONSerialization.data(withJSONObject: object))
            lines.append(0x0A)
        }
        try expectAgreement(lines)
    }

    @Test("bodies that are not a batch are refused as a whole", arguments: [
        "[", "[1,]", "[{\"a\":1}", "[] trailing", "[01]", "[\"\\x\"]", "[\"tab\there\"]", "[NaN]",
    ])
    func malformedBodies(text: String) throws {
        #expect(throws: EventBatchError.self) { _ = try EventBatchDecoder.decode(Data(text.utf8)) }
    }

    @Test("JSON lines: a broken line is rejected on its own, whitespace lines are skipped")
    func brokenLine() throws {
        let good = try EventJSON.encode(SampleEvents.make(.log, index: 1))
        var body = good + Data("\n   \n{broken\n".utf8) + good + Data("\n".utf8)
        let results = try EventBatchDecoder.decode(body)
        #expect(results.count == 3)
        #expect((try? results[0].get()) != nil)
        if case .failure(let rejection) = results[1] { #expect(rejection.index == 1) } else { Issue.record("line 2 accepted") }
        body = Data("\n\n".utf8)
        #expect(try EventBatchDecoder.decode(body).isEmpty)
    }

    @Test("nesting deeper than the limit is an error, not a crash")
    func deepNesting() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONTapeError.self) { _ = try JSONTape(bytes: Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(try JSONTape(bytes: Array(fine.utf8)).nodes.count == 200)
    }

    @Test("escapes, surrogate pairs and big numbers decode like Foundation")
    func stringsAndNumbers() throws {
        let text = #"["a\"b\\c\/d\n\u00e9\ud83d\ude80", 12345678901234567890, -0.5e-3, 0]"#
        let tape = try JSONTape(bytes: Array(text.utf8))
        let strings = try JSONTapeDecoder.decode([AnyScalar].self, from: tape)
        #expect(strings[0] == .string("a\"b\\c/d\né🚀"))
        #expect(strings[1] == .unsigned(12_345_678_901_234_567_890))
        #expect(strings[2] == .double(-0.0005))
        #expect(strings[3] == .unsigned(0))
    }

    @Test("seeded random corruptions of a valid batch never trap")
    func corruptionsNeverTrap() throws {
        let body = Array(try EventJSON.makeEncoder().encode(EventType.allCases.map { SampleEvents.make($0, index: 3) }))
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<1500 {
            var mutated = body
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<mutated.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: mutated.remove(at: position)
                default: mutated.insert(UInt8(ascii: "\""), at: position)
                }
            }
            _ = try? EventBatchDecoder.decode(Data(mutated))
        }
    }
}

/// A scalar of any JSON type, for decoding heterogeneous arrays in tests.
enum AnyScalar: Decodable, Equatable {
    case string(String)
    case unsigned(UInt64)
    case double(Double)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(String.self) { self = .string(value); return }
        if let value = try? container.decode(UInt64.self) { self = .unsigned(value); return }
        self = .double(try container.decode(Double.self))
    }
}
