import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport
import VigilTransport
@testable import VigilServer

/// A fault-injecting front for the real server: 30% of requests fail (500, 502 HTML, 200 HTML,
/// 200 empty, 503, a dropped connection), 10% time out (half of them after the real server stored
/// the batch, as when an answer is lost), 5% are answered 429 with `Retry-After`; the rest go to
/// the real server and its answer comes back unchanged.
private final class FaultyFront: @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SeededGenerator
    private let upstream: HTTPTestClient
    private(set) var outcomes: [String: Int] = [:]

    init(upstream: HTTPTestClient, seed: UInt64) {
        self.upstream = upstream
        generator = SeededGenerator(seed: seed)
    }

    func handle(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        lock.lock()
        let roll = Double(generator.next() >> 11) / Double(1 << 53)
        let pick = generator.next()
        lock.unlock()
        if request.method == "POST", request.path == "/api/v1/events" {
            if roll < 0.10 {
                if pick % 2 == 0 { _ = forward(request) }
                return note("timeout", .hang)
            }
            if roll < 0.40 {
                switch pick % 6 {
                case 0: return note("500", .respond(status: 500, headers: [:], body: Data("{\"error\":\"internal\"}".utf8)))
                case 1: return note("502 html", .respond(status: 502, headers: ["Content-Type": "text/html"],
                                                        body: Data("<html><h1>502 Bad Gateway</h1></html>".utf8)))
                case 2: return note("200 html", .respond(status: 200, headers: ["Content-Type": "text/html"],
                                                        body: Data("<!doctype html><title>captive portal</title>".utf8)))
                case 3: return note("200 empty", .respond(status: 200, headers: [:], body: Data()))
                case 4: return note("503", .respond(status: 503, headers: [:], body: Data()))
                default: return note("dropped", .close)
                }
            }
            if roll < 0.45 {
                return note("429", .respond(status: 429, headers: ["Retry-After": "\(1 + pick % 3)"], body: Data()))
            }
        }
        guard let answer = forward(request) else { return note("upstream failed", .close) }
        return note("forwarded \(answer.status)", .respond(status: answer.status, headers: ["Content-Type": "application/json"],
                                                             body: answer.body))
    }

    private func forward(_ request: LoopbackHTTPServer.Request) -> HTTPTestClient.Response? {
        var headers: [String: String] = [:]
        for (name, value) in request.headers where !["host", "content-length", "connection"].contains(name) {
            headers[name] = value
        }
        return try? upstream.send(request.method, request.path, headers: headers,
                                  body: request.method == "GET" ? nil : request.body)
    }

    private func note(_ outcome: String, _ reply: LoopbackHTTPServer.Reply) -> LoopbackHTTPServer.Reply {
        lock.lock()
        outcomes[outcome, default: 0] += 1
        lock.unlock()
        return reply
    }

    var summary: String {
        lock.lock()
        defer { lock.unlock() }
        return "\(outcomes.sorted { $0.key < $1.key })"
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
