import Foundation
import Testing
import Vigil
import VigilCore
import VigilTestSupport
import VigilTransport

/// What the wiring test's server saw.
private final class IngestLog: @unchecked Sendable {
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

    var configHeaders: [[String: String]] {
        lock.lock(); defer { lock.unlock() }
        return configRequests
    }
}

@Suite("Vigil.start wiring: durable store, uploader and remote configuration")
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
}
