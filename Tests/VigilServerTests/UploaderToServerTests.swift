import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport
import VigilTransport
@testable import VigilServer

/// A fault-injecting front for the real server (``IngestFaultPlan``): a timed-out request may
/// still reach the real server, an accepted one goes there and its answer comes back unchanged.
private final class FaultyFront: @unchecked Sendable {
    private let plan: IngestFaultPlan
    private let upstream: HTTPTestClient

    init(upstream: HTTPTestClient, seed: UInt64) {
        self.upstream = upstream
        plan = IngestFaultPlan(seed: seed)
    }

    var summary: String { plan.summary }

    func handle(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        if request.method == "POST", request.path == "/api/v1/events" {
            switch plan.next() {
            case .timeOut(let storing):
                if storing { _ = forward(request) }
                return .hang
            case .fail(let reply):
                return reply
            case .accept:
                // The real server decides what it acknowledges.
                break
            }
        }
        guard let answer = forward(request) else {
            plan.note("upstream failed")
            return .close
        }
        return .respond(status: answer.status, headers: ["Content-Type": "application/json"], body: answer.body)
    }

    private func forward(_ request: LoopbackHTTPServer.Request) -> HTTPTestClient.Response? {
        var headers: [String: String] = [:]
        for (name, value) in request.headers where !["host", "content-length", "connection"].contains(name) {
            headers[name] = value
        }
        return try? upstream.send(request.method, request.path, headers: headers,
                                  body: request.method == "GET" ? nil : request.body)
    }
}

@Suite("SDK store and uploader to the real server")
struct UploaderToServerTests {
    @Test("10,000 events through a front that fails 30%, times out 10% and rate-limits 5%: the server holds exactly 10,000")
    func flakyPathToRealServer() throws {
        let server = try TestServer(.sqlite)
        let front = FaultyFront(upstream: server.client, seed: 77)
        let proxy = try LoopbackHTTPServer { front.handle($0) }
        defer { proxy.stop() }
        let directory = try TemporaryDirectory(prefix: "e2e-server")
        let store = EventStore(directory: directory.url)
        defer { store.close() }
        var sent = Set<String>()
        for index in 0..<10_000 {
            // No crash events: each would wait for its own fsync.
            let type = EventType.allCases[index % 8] == .crash ? EventType.log : EventType.allCases[index % 8]
            let event = SampleEvents.make(type, index: index)
            sent.insert(event.id.uuidString)
            store.enqueue(event)
            if index % 1000 == 999 { store.flush() }
        }
        #expect(store.flush())
        #expect(store.statistics().storedRecords == 10_000)

        // The real policy with time 1000× faster (30 s backoffs take 30 ms); request timeouts
        // are real time.
        var policy = UploadPolicy()
        policy.requestTimeoutSeconds = 2
        let uploader = EventUploader(store: store,
                                     endpoint: EventUploader.Endpoint(baseURL: proxy.baseURL, ingestKey: server.ingestKey),
                                     http: URLSessionHTTPClient(), policy: policy,
                                     scheduler: DispatchUploadScheduler(timeScale: 0.001), seed: 9)
        uploader.start()
        defer { uploader.stop() }
        let deadline = Date().addingTimeInterval(240)
        while Date() < deadline, store.statistics().storedRecords > 0 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let statistics = uploader.statistics()
        #expect(store.statistics().storedRecords == 0, "\(front.summary)")
        let rows = try server.store.database.read { connection in
            try connection.query("SELECT id FROM apm_event WHERE project_id = ?", [.integer(server.project.id)])
        }
        let stored = rows.compactMap { $0[0].string }
        #expect(stored.count == 10_000, "\(front.summary)")
        #expect(Set(stored) == sent, "every event once, and only those")
        #expect(statistics.droppedBatches == 0 && statistics.droppedEvents == 0)
        #expect((statistics.retries[.timeout] ?? 0) > 0, "\(statistics.retries)")
        #expect((statistics.retries[.rateLimited] ?? 0) > 0, "\(statistics.retries)")
        #expect((statistics.retries[.serverError] ?? 0) > 0, "\(statistics.retries)")
        #expect(statistics.malformedResponses > 0)
    }
}
