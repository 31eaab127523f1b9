import Foundation
import VigilCore

/// Realistic events of every type, deterministic for a given seed, for tests across modules.
public enum SampleEvents {
    /// The app every sample event comes from.
    public static let app = AppInfo(id: "com.example.shop", version: "3.2.0", build: "412")
    /// The device every sample event comes from.
    public static let device = DeviceInfo(model: "iPhone14,2", os: "iOS", osVersion: "18.1", arch: "arm64")
    /// The app's main image.
    public static let mainImage = ImageInfo(name: "Shop", id: "82D13D98-219E-3040-B62A-07A297007A7C", arch: "arm64",
                                            loadAddress: Address(0x1_0223_0000), size: 32768,
                                            path: "/private/var/containers/Bundle/Application/X/Shop.app/Shop")
    /// A system image.
    public static let systemImage = ImageInfo(name: "libsystem_kernel.dylib", id: "5C7B6E2A-1111-3A2B-9C4D-00000000AAAA",
                                              arch: "arm64", loadAddress: Address(0x1_e000_0000), size: 0x40000,
                                              path: "/usr/lib/system/libsystem_kernel.dylib")
    /// 2026-11-29T20:48:43.123Z
    public static let time = Date(timeIntervalSince1970: 1_795_985_323.123)

    /// `time` moved by whole milliseconds, exactly as the wire format would carry it.
    public static func time(plusMilliseconds milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(1_795_985_323_123 + milliseconds) / 1000)
    }

    /// One event of every ``EventType``, in `EventType.allCases` order.
    public static func oneOfEach(session: UUID = UUID(uuidString: "0F4B5C4E-7D33-4C4A-9B8E-2F7D4E1C0A01")!) -> [Event] {
        EventType.allCases.map { make($0, index: 0, session: session) }
    }

    /// A realistic event of `type`; `index` varies ids, pages and numbers deterministically.
    public static func make(_ type: EventType, index: Int, session: UUID = UUID()) -> Event {
        let id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", index * 16 + typeIndex(type)))!
        let start = time(plusMilliseconds: Int64(index) * 1000)
        let pages = ["CheckoutViewController", "CartViewController", "HomeViewController"]
        let page = pages[index % pages.count]
        let stack = [Address(0x1_0223_1a40 + UInt64(index % 7) * 4), Address(0x1_0223_0f10), Address(0x1_e000_1234)]
        let payload: EventPayload
        var images: [ImageInfo]? = nil
        switch type {
        case .hang:
            images = [mainImage, systemImage]
            payload = .hang(HangPayload(start: start, end: time(plusMilliseconds: Int64(index) * 1000 + 2500), durationMs: 2500,
                                        kind: .fullyBlocking, thresholdMs: 2000, runLoopActivity: "beforeSources",
                                        stacks: [StackCount(frames: stack, count: 40), StackCount(frames: Array(stack.dropFirst()), count: 10)],
                                        hotStack: stack, sampleCount: 50, cpuPercent: 97.5, memoryBytes: 180_000_000))
        case .frames:
            images = [mainImage]
            payload = .frames(FramesPayload(page: page, windowStart: start, windowEnd: time(plusMilliseconds: Int64(index) * 1000 + 1000),
                                            frames: 52, fps: 52, refreshRate: 60, dropped: 8, slow: 1, severe: 0,
                                            frozen: 0))
        case .launch:
            payload = .launch(LaunchPayload(kind: .cold, processStart: time(plusMilliseconds: Int64(index) * 1000 - 1200), preMainMs: 310,
                                            mainToDidFinishMs: 420, ttidMs: 980 + Double(index % 50), ttfdMs: 1450,
                                            pageFaults: 5120, majorPageFaults: 12))
        case .network:
            payload = .network(NetworkPayload(method: "GET", urlTemplate: "https://api.example.com/users/:id/orders",
                                              host: "api.example.com", status: index % 10 == 0 ? 503 : 200,
                                              bytesSent: 512, bytesReceived: 18_432,
                                              timings: NetworkTimings(dns: 12, connect: 30, tls: 45, request: 1,
                                                                      ttfb: 120 + Double(index % 100), response: 20,
                                                                      total: 228 + Double(index % 100)),
                                              reusedConnection: false, protocol: "h2"))
        case .crash:
            images = [mainImage, systemImage]
            payload = .crash(CrashPayload(signal: "SIGSEGV", code: "SEGV_MAPERR", faultAddress: Address(0x10),
                                          threads: [CrashThread(crashed: true, name: "main", frames: stack),
                                                    CrashThread(crashed: false, name: "com.apple.network", frames: [Address(0x1_e000_2000)])],
                                          registers: ["pc": stack[0], "lr": stack[1], "sp": Address(0x16f_dff000)]))
        case .resource:
            payload = .resource(ResourcePayload(cpuPercent: 35.5, threads: [ThreadUsage(name: "main", id: 259, cpuPercent: 30)],
                                                memoryBytes: 210_000_000, rssBytes: 250_000_000))
        case .span:
            payload = .span(SpanPayload(traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7",
                                        name: "ble.connect", kind: .client, start: start, end: time(plusMilliseconds: Int64(index) * 1000 + 800),
                                        status: .ok, attributes: ["peer.id": "T-100", "mtu": 247, "retries": 0]))
        case .log:
            payload = .log(LogPayload(level: .warn, message: "payment retried\nsecond attempt", attributes: ["attempt": 2]))
        case .session:
            let outcomes = SessionOutcome.allCases
            let outcome = outcomes[index % outcomes.count]
            payload = .session(SessionPayload(start: start, end: time(plusMilliseconds: Int64(index) * 1000 + 120_000),
                                              durationMs: 120_000, foregroundMs: 90_000 + Double(index % 100),
                                              outcome: outcome, reasons: outcome == .exited ? ["stopped cleanly"] : ["inferred at the next launch"],
                                              lastAppState: outcome == .backgroundKilled ? "background" : "foreground"))
        }
        return Event(id: id, time: start, session: session, app: app, device: device,
                     context: EventContext(page: page, appState: "foreground", network: "wifi"),
                     tags: ["experiment": "b"], images: images, payload: payload)
    }

    private static func typeIndex(_ type: EventType) -> Int {
        EventType.allCases.firstIndex(of: type)!
    }
}
