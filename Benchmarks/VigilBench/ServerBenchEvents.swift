import Foundation
import VigilCore
import VigilServer

/// Batches of realistic events for the server benchmark: one template batch encoded once, then
/// copied per request with fresh ids and times written over the template's (fixed-width) bytes,
/// so the load generator spends next to nothing making them.
///
/// The times are fresh because an app uploads what it recorded in the last moments: a batch's
/// events end just before it is sent. (Sending the template's own times in every batch — the
/// same hundred seconds, over and over — made every index on time insert at the same hundred
/// places, further apart as the table grew, which no app's traffic does.)
struct ServerBenchEvents {
    /// The encoded template batch.
    let template: Data
    /// Byte offsets of each event's id (36 characters) in ``template``.
    let idOffsets: [Int]
    /// Byte offsets of each event's time (24 characters, `Timestamp.format`) in ``template``.
    let timeOffsets: [Int]

    /// The mix, per 100 events: 40 network, 20 frames, 10 spans, 8 logs, 2 sessions, 8 launches,
    /// 7 hangs, 5 crashes — what an app's upload looks like, with stacks on hangs and crashes;
    /// every event carries its install id, as the SDK sends them.
    init(batchSize: Int, seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let app = AppInfo(id: "com.example.shop", version: "3.2.0", build: "412")
        let device = DeviceInfo(model: "iPhone14,2", os: "iOS", osVersion: "18.1", arch: "arm64")
        let shop = ImageInfo(name: "Shop", id: "82D13D98-219E-3040-B62A-07A297007A7C", arch: "arm64",
                             loadAddress: Address(0x1_0223_0000), size: 0x80000,
                             path: "/private/var/containers/Bundle/Application/X/Shop.app/Shop")
        let kernel = ImageInfo(name: "libsystem_kernel.dylib", id: "5C7B6E2A-1111-3A2B-9C4D-00000000AAAA", arch: "arm64",
                               loadAddress: Address(0x1_e000_0000), size: 0x40000, path: "/usr/lib/system/libsystem_kernel.dylib")
        let pages = ["CheckoutViewController", "CartViewController", "HomeViewController", "SearchViewController",
                     "ProductViewController", "ProfileViewController"]
        let templates = ["/users/:id/orders", "/products/:id", "/search", "/cart/:id/items", "/images/:id", "/recommendations"]
        let sessions = (0..<20).map { _ in UUID() }
        let installs = (0..<20).map { _ in UUID() }
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000 - 3600)
        var events: [Event] = []
        for index in 0..<batchSize {
            let slot = index % 100
            let time = start.addingTimeInterval(Double(index))
            let page = pages[Int.random(in: 0..<pages.count, using: &generator)]
            let sessionIndex = Int.random(in: 0..<sessions.count, using: &generator)
            let session = sessions[sessionIndex]
            let id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", index))!
            let stack = (0..<Int.random(in: 12...28, using: &generator)).map { depth -> Address in
                depth < 3 ? Address(0x1_e000_1000 + UInt64(depth) * 0x40)
                          : Address(0x1_0223_0000 + UInt64.random(in: 0x1000...0x7f000, using: &generator) & ~3)
            }
            let payload: EventPayload
            var images: [ImageInfo]?
            switch slot {
            case 0..<40:
                let total = Double.random(in: 40...900, using: &generator)
                payload = .network(NetworkPayload(method: slot % 5 == 0 ? "POST" : "GET",
                                                  urlTemplate: "https://api.example.com" + templates[slot % templates.count],
                                                  host: "api.example.com", status: slot % 17 == 0 ? 503 : 200,
                                                  bytesSent: 600, bytesReceived: Int64.random(in: 500...90_000, using: &generator),
                                                  timings: NetworkTimings(dns: 8, connect: 22, tls: 35, request: 1, ttfb: total * 0.6,
                                                                          response: total * 0.2, total: total),
                                                  reusedConnection: slot % 3 == 0, protocol: "h2",
                                                  traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7"))
            case 40..<60:
                let frozen = slot == 41 ? 1 : 0
                payload = .frames(FramesPayload(page: page, windowStart: time, windowEnd: time.addingTimeInterval(5), frames: 290,
                                                fps: 58, refreshRate: 60, dropped: Int.random(in: 0...30, using: &generator),
                                                slow: Int.random(in: 0...4, using: &generator), severe: slot % 7 == 0 ? 1 : 0,
                                                frozen: frozen, durationMs: frozen == 1 ? 850 : nil,
                                                stack: frozen == 1 ? stack : nil))
                if frozen == 1 { images = [shop, kernel] }
            case 60..<70:
                payload = .span(SpanPayload(traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: String(format: "%016x", slot),
                                            name: ["ble.connect", "db.query", "image.decode"][slot % 3], kind: .client,
                                            start: time, end: time.addingTimeInterval(0.12), status: .ok,
                                            attributes: ["peer.id": "T-100", "mtu": 247]))
            case 78..<80:
                let outcomes = SessionOutcome.allCases
                let duration = Double.random(in: 30_000...900_000, using: &generator)
                let outcome = outcomes[Int.random(in: 0..<outcomes.count, using: &generator)]
                payload = .session(SessionPayload(start: time, end: time.addingTimeInterval(duration / 1000), durationMs: duration,
                                                  foregroundMs: duration * 0.7, outcome: outcome,
                                                  reasons: ["no crash report, no clean exit and no app or OS update; last seen in the foreground"],
                                                  lastAppState: "foreground"))
            case 70..<78:
                payload = .log(LogPayload(level: .warn, message: "payment retried after a timeout", attributes: ["attempt": 2]))
            case 80..<88:
                payload = .launch(LaunchPayload(kind: slot % 4 == 0 ? .warm : .cold, processStart: time.addingTimeInterval(-2),
                                                preMainMs: 300, mainToDidFinishMs: 400,
                                                ttidMs: Double.random(in: 700...1600, using: &generator),
                                                ttfdMs: Double.random(in: 1200...2600, using: &generator), pageFaults: 5000))
            case 88..<95:
                images = [shop, kernel]
                let duration = Double.random(in: 2000...6000, using: &generator)
                payload = .hang(HangPayload(start: time, end: time.addingTimeInterval(duration / 1000), durationMs: duration,
                                            kind: .fullyBlocking, thresholdMs: 2000, runLoopActivity: "beforeSources",
                                            stacks: [StackCount(frames: stack, count: 30), StackCount(frames: Array(stack.dropFirst(2)), count: 10)],
                                            hotStack: Array(stack.suffix(from: 3)), sampleCount: 40, cpuPercent: 96,
                                            memoryBytes: 180_000_000))
            default:
                images = [shop, kernel]
                payload = .crash(CrashPayload(signal: "SIGSEGV", code: "SEGV_MAPERR", faultAddress: Address(0x10),
                                              threads: [CrashThread(crashed: true, name: "main", frames: stack),
                                                        CrashThread(crashed: false, name: "com.apple.network", frames: Array(stack.prefix(6)))],
                                              registers: ["pc": stack[0], "lr": stack[1], "sp": Address(0x16f_dff000)]))
            }
            events.append(Event(id: id, time: time, session: session, app: app, device: device,
                                context: EventContext(page: page, appState: "foreground", network: "wifi"),
                                tags: ["experiment": "b"], images: images, install: installs[sessionIndex], payload: payload))
        }
        template = try EventJSON.makeEncoder().encode(events)
        let bytes = [UInt8](template)
        func offset(of text: String) -> Int? {
            let needle = Array(text.utf8)
            return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
        }
        idOffsets = events.map { event in (offset(of: "\"id\":\"\(event.id.uuidString)\"") ?? 0) + 6 }
        timeOffsets = try events.map { event in
            let stamp = Timestamp.format(event.time)
            guard stamp.utf8.count == Self.timeWidth, let at = offset(of: "\"time\":\"\(stamp)\"") else {
                throw BenchError("the template's time \(stamp) is not where the benchmark writes times")
            }
            return at + 8
        }
    }

    /// Characters of a formatted time.
    static let timeWidth = 24

    /// The template with every id's first 16 hex digits replaced by `client` and `sequence`,
    /// and the events' times 10 ms apart, the last one 10 ms before `now`.
    func batch(client: Int, sequence: Int, now: Date = Date()) -> Data {
        var copy = [UInt8](template)
        let prefix = Array(String(format: "%08X-%04X-4", UInt32(truncatingIfNeeded: sequence), UInt16(truncatingIfNeeded: client)).utf8)
        for offset in idOffsets {
            for (index, byte) in prefix.enumerated() { copy[offset + index] = byte }
        }
        for (position, offset) in timeOffsets.enumerated() {
            let time = now.addingTimeInterval(-0.01 * Double(timeOffsets.count - position))
            let stamp = Array(Timestamp.format(time).utf8)
            guard stamp.count == Self.timeWidth else { continue }
            for (index, byte) in stamp.enumerated() { copy[offset + index] = byte }
        }
        return Data(copy)
    }
}

/// Every client's request bodies, made (and gzipped) before the load starts, so that during
/// the measured seconds the load generator only sends: the clients share the server's two
/// cores, and making a body costs about a tenth of what the server spends on it. A client
/// that sends more requests than were made makes the rest as it goes.
///
/// The same bodies serve both databases (each side is a new project in a database of its
/// own). A client's body number `n` is stamped as if sent `n × spacing` after they were made,
/// plus an offset of its own: every batch carries later times than the one before, as an app's
/// uploads do, and no two clients send the same times. (Stamping them all with the moment they
/// were made put every batch's events at the same hundred times, which made the time indexes
/// insert at the same hundred places, further apart as the table grew: SQLite's WAL grew by half
/// again and its checkpoint stalls came more often. Without the offsets, eight clients sent equal
/// times, and PostgreSQL ran about 6 % slower than with bodies gzipped as they were sent.)
final class PreparedBodies: @unchecked Sendable {
    private let events: ServerBenchEvents
    private let gzip: Bool
    /// `bodies[client][sequence - 1]`.
    private let bodies: [[Data]]

    /// `perClient` bodies for each of `clients`, made on every core, a client's successive
    /// bodies `spacing` seconds apart in time.
    init(events: ServerBenchEvents, clients: Int, perClient: Int, spacing: TimeInterval, gzip: Bool) {
        self.events = events
        self.gzip = gzip
        let lock = NSLock()
        nonisolated(unsafe) var made = Array(repeating: [Data](), count: clients)
        let now = Date()
        DispatchQueue.concurrentPerform(iterations: clients) { client in
            // Clients are not in step: each one's times are offset by its share of the spacing.
            let offset = Double(client) * spacing / Double(clients)
            let mine = (1...max(1, perClient)).map { sequence in
                Self.body(events, client: client, sequence: sequence,
                          now: now.addingTimeInterval(Double(sequence) * spacing + offset), gzip: gzip)
            }
            lock.lock()
            made[client] = mine
            lock.unlock()
        }
        bodies = made
    }

    /// Client `client`'s body number `sequence` (from 1): made in advance, or now.
    func body(client: Int, sequence: Int) -> Data {
        if client < bodies.count, sequence >= 1, sequence <= bodies[client].count { return bodies[client][sequence - 1] }
        return Self.body(events, client: client, sequence: sequence, now: Date(), gzip: gzip)
    }

    /// Bytes held, for the log.
    var totalBytes: Int { bodies.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } } }

    private static func body(_ events: ServerBenchEvents, client: Int, sequence: Int, now: Date, gzip: Bool) -> Data {
        let body = events.batch(client: client, sequence: sequence, now: now)
        return gzip ? ((try? GzipDeflater.compress(body, level: 1)) ?? body) : body
    }
}
