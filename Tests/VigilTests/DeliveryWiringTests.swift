import Foundation
import Synchronization
import Testing
@testable import Vigil
import VigilCore
import VigilStore
import VigilTestSupport
import VigilTransport

/// What a test ingest server saw (the wiring tests and the sample upload tests).
final class IngestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [[String: Any]] = []
    private var configRequests: [[String: String]] = []

    func record(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        if request.method == "GET", request.path == "/api/v1/config" {
            lock.lock()
            configRequests.append(request.headers)
            lock.unlock()
            return .respond(status: 304, headers: ["ETag": "\"v1\""], body: Data())
        }
        guard request.method == "POST", request.path == "/api/v1/events",
              request.headers["authorization"] == "Bearer wiring-key" else {
            return .respond(status: 401, headers: [:], body: Data())
        }
        var ids: [String] = []
        var parsed: [[String: Any]] = []
        let body = (try? Gzip.decompress(request.body, limit: 64 << 20)) ?? Data()
        for line in body.split(separator: 0x0A) {
            if let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
               let id = object["id"] as? String {
                ids.append(id)
                parsed.append(object)
            }
        }
        lock.lock()
        events += parsed
        lock.unlock()
        let answer = (try? JSONSerialization.data(withJSONObject: ["accepted": ids, "rejected": [Any]()])) ?? Data()
        return .respond(status: 200, headers: ["Content-Type": "application/json"], body: answer)
    }

    var eventTypes: [String] {
        lock.lock(); defer { lock.unlock() }
        return events.compactMap { $0["type"] as? String }
    }

    var eventIDs: [String] {
        lock.lock(); defer { lock.unlock() }
        return events.compactMap { $0["id"] as? String }
    }

    var configHeaders: [[String: String]] {
        lock.lock(); defer { lock.unlock() }
        return configRequests
    }
}

/// Keeps every event it is handed (the setup's observer).
/// Counts requests a test server answered, from its threads.
private final class RequestCounter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

private final class CollectingSink: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [Event] = []

    func emit(_ event: Event) {
        lock.lock(); collected.append(event); lock.unlock()
    }

    var events: [Event] {
        lock.lock(); defer { lock.unlock() }
        return collected
    }
}

/// One suite, run serially: `Vigil` is process-wide, so two of these tests cannot run at once.
@Suite("Vigil.start wiring: durable store, uploader and remote configuration", .serialized)
struct DeliveryWiringTests {
    @Test("without a sink, events go through the store to the server, under the configuration cached by the last run")
    func deliversThroughStore() throws {
        let log = IngestLog()
        let server = try LoopbackHTTPServer { log.record($0) }
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "wiring")
        // The previous run cached a document that uploads at once and switches launch off.
        var cached = RemoteConfig(modules: [.launch: false])
        cached.upload.initialDelaySeconds = 0
        cached.upload.idleIntervalSeconds = 1
        try (Data("\"v1\"\n".utf8) + cached.encoded()).write(to: directory.file("remote-config.cache"))

        var monitoring = VigilConfiguration()
        monitoring.enabledModules = [.resource, .launch]
        monitoring.resource.sampleIntervalMs = 100
        let setup = VigilSetup(app: AppInfo(id: "dev.vigil.wiring", version: "1", build: "1"), monitoring: monitoring,
                               serverURL: server.baseURL, ingestKey: "wiring-key", dataDirectory: directory.url,
                               resourceReportIntervalMs: 200)
        #expect(Vigil.start(setup))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let accepted = Vigil.deliveryStatistics()?.uploader?.eventsAccepted ?? 0
            if accepted > 0, log.eventTypes.contains("resource"), !log.configHeaders.isEmpty { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let statistics = try #require(Vigil.deliveryStatistics())
        Vigil.stop()
        #expect(log.eventTypes.contains("resource"))
        #expect(!log.eventTypes.contains("launch"), "the cached configuration switched launch off")
        #expect(statistics.store.written >= 1)
        #expect((statistics.uploader?.eventsAccepted ?? 0) >= 1)
        #expect(log.configHeaders.first?["if-none-match"] == "\"v1\"")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("events").path)
            .contains { $0.hasSuffix(".vgs") })
        #expect(Vigil.deliveryStatistics() == nil)
    }

    @Test("stop(uploadingFor:) sends what is stored without waiting out the 5 s launch delay; the observer gets a copy")
    func stopUploads() throws {
        let log = IngestLog()
        let server = try LoopbackHTTPServer { log.record($0) }
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "drain")
        var monitoring = VigilConfiguration()
        monitoring.enabledModules = [.resource]
        monitoring.resource.sampleIntervalMs = 50
        let copies = CollectingSink()
        var setup = VigilSetup(app: AppInfo(id: "dev.vigil.drain", version: "1", build: "1"), monitoring: monitoring,
                               serverURL: server.baseURL, ingestKey: "wiring-key", dataDirectory: directory.url,
                               resourceReportIntervalMs: 50)
        setup.eventObserver = copies
        #expect(Vigil.start(setup))
        let deadline = Date().addingTimeInterval(10)
        while copies.events.count < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let started = Date()
        let drain = try #require(Vigil.stop(uploadingFor: 20))
        #expect(Date().timeIntervalSince(started) < 4.5, "the launch delay (5 s) was cut short")
        #expect(drain.isComplete)
        #expect(drain.eventsLeft == 0)
        #expect(drain.statistics.store.storedRecords == 0)
        let sent = Set(log.eventIDs)
        #expect(sent.count == copies.events.count, "every stored event was uploaded, and the observer saw each")
        #expect(sent == Set(copies.events.map(\.id.uuidString)))
        #expect(drain.statistics.uploader?.eventsAccepted == sent.count)
        #expect(Vigil.deliveryStatistics() == nil, "the pipeline stopped")
    }

    @Test("stop(uploadingFor:) gives up at its timeout, says how many events were left, and keeps them for the next start")
    func stopUploadTimesOut() throws {
        let refusals = RequestCounter()
        let refusing = try LoopbackHTTPServer { request in
            if request.method == "POST" { refusals.increment() }
            return .respond(status: 500, headers: [:], body: Data())
        }
        let directory = try TemporaryDirectory(prefix: "drain-refused")
        var monitoring = VigilConfiguration()
        monitoring.enabledModules = [.resource]
        monitoring.resource.sampleIntervalMs = 50
        let copies = CollectingSink()
        var setup = VigilSetup(app: AppInfo(id: "dev.vigil.drain", version: "1", build: "1"), monitoring: monitoring,
                               serverURL: refusing.baseURL, ingestKey: "wiring-key", dataDirectory: directory.url,
                               resourceReportIntervalMs: 50)
        setup.uploadDelaySeconds = 0
        setup.eventObserver = copies
        #expect(Vigil.start(setup))
        // Wait for stored events and a first refused upload. The uploader looks at once (finding
        // nothing stored yet) and then every `idleIntervalSeconds` (15 s), so the deadline must
        // be past that second look.
        let deadline = Date().addingTimeInterval(60)
        while copies.events.isEmpty || refusals.count == 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        let drain = try #require(Vigil.stop(uploadingFor: 0.5))
        refusing.stop()
        #expect(!drain.isComplete)
        #expect(drain.eventsLeft > 0)
        #expect(drain.waitedSeconds >= 0.5)
        #expect((drain.statistics.uploader?.retries[.serverError] ?? 0) >= 1, "uploadDelaySeconds 0: it tried at once")

        // The next start with the same directory sends them.
        let log = IngestLog()
        let server = try LoopbackHTTPServer { log.record($0) }
        defer { server.stop() }
        monitoring.enabledModules = []
        setup = VigilSetup(app: AppInfo(id: "dev.vigil.drain", version: "1", build: "1"), monitoring: monitoring,
                           serverURL: server.baseURL, ingestKey: "wiring-key", dataDirectory: directory.url)
        #expect(Vigil.start(setup))
        let second = try #require(Vigil.stop(uploadingFor: 20))
        #expect(second.isComplete)
        // What the first run left, plus the sessions: the first run's clean end (stored with the
        // rest) and the second run's own.
        #expect(log.eventIDs.count == drain.eventsLeft + 1)
    }

    @Test("stop(uploadingFor:) answers nil when events do not go to a server")
    func stopWithoutServer() throws {
        let directory = try TemporaryDirectory(prefix: "drain-local")
        var monitoring = VigilConfiguration()
        monitoring.enabledModules = []
        #expect(Vigil.start(VigilSetup(app: AppInfo(id: "dev.vigil.drain", version: "1", build: "1"), monitoring: monitoring,
                                       dataDirectory: directory.url)))
        #expect(Vigil.stop(uploadingFor: 1) == nil)
        #expect(!Vigil.isRunning)
    }

    @Test("a leftover hang marker becomes a critical fatal-hang record, fsynced before the marker is removed")
    func leftoverMarkerIsStored() throws {
        let directory = try TemporaryDirectory(prefix: "fatal")
        let start = SampleEvents.time
        let marker = HangMarker(start: start, lastSeen: SampleEvents.time(plusMilliseconds: 9000), durationMs: 9000,
                                thresholdMs: 2000, runLoopActivity: "beforeSources", pastFatalThreshold: true,
                                stacks: [StackCount(frames: [Address(0x1000)], count: 3)], hotStack: [Address(0x1000)],
                                sampleCount: 3)
        let dead = UUID()
        let file = HangMarkerFile(directory: directory.url)
        #expect(file.write(HangMarkerFile.Record(session: dead, marker: marker, images: [], context: EventContext())))

        var monitoring = VigilConfiguration()
        monitoring.enabledModules = [.hang]
        #expect(Vigil.start(VigilSetup(app: AppInfo(id: "dev.vigil.fatal", version: "1", build: "1"), monitoring: monitoring,
                                       dataDirectory: directory.url)))
        // Start hands the leftover marker to the SDK's queue (no file I/O on the caller's thread);
        // diagnostics() runs behind it on that queue, so once it returns the marker was turned
        // into an event, stored and synced, then removed.
        _ = try #require(Vigil.diagnostics())
        #expect(file.leftover() == nil)
        let statistics = try #require(Vigil.deliveryStatistics())
        Vigil.stop()
        #expect(statistics.store.written >= 1)
        #expect(statistics.store.syncs >= 1)

        let store = EventStore(directory: directory.file("events"))
        defer { store.close() }
        let records = store.nextBatch(maxEvents: 100, maxBytes: 1 << 20)
        let fatal = try records.map { (try EventJSON.decode($0.payload), $0.priority) }
            .filter { if case .hang(let hang) = $0.0.payload { return hang.kind == .fatal } else { return false } }
        #expect(fatal.count == 1)
        #expect(fatal.first?.0.session == dead)
        #expect(fatal.first?.1 == .critical)
    }

    @Test("resetInstallID gives later events and the session a new install id, kept in the data directory; without a running SDK it resets the directory's")
    func resetInstallID() throws {
        let directory = try TemporaryDirectory(prefix: "install")
        let copies = CollectingSink()
        var monitoring = VigilConfiguration()
        monitoring.enabledModules = []
        var setup = VigilSetup(app: AppInfo(id: "dev.vigil.install", version: "1", build: "1"), monitoring: monitoring,
                               sink: copies, dataDirectory: directory.url)
        setup.userID = "customer-42"
        #expect(Vigil.start(setup))
        let first = try #require(Vigil.installID)
        let second = try #require(Vigil.resetInstallID())
        #expect(second != first)
        #expect(Vigil.installID == second)
        Vigil.stop()
        let stored = try String(contentsOf: directory.file("install-id"), encoding: .utf8)
        #expect(UUID(uuidString: stored.trimmingCharacters(in: .whitespacesAndNewlines)) == second)
        let session = try #require(copies.events.first { $0.type == .session })
        #expect(session.install == second, "the session carries the id in force when it ended")
        #expect(session.user == SHA256Digest.hex("customer-42"))

        // Not running: the id in the given directory is replaced; the next start uses it.
        let third = try #require(Vigil.resetInstallID(dataDirectory: directory.url))
        #expect(third != second)
        #expect(Vigil.start(setup))
        #expect(Vigil.installID == third)
        Vigil.stop()
    }
}
