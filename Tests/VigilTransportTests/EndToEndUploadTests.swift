import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport
import VigilTransport

/// The fault-injecting ingest endpoint of the end-to-end test (``IngestFaultPlan``), which
/// keeps the ids of what it stored.
private final class FlakyIngest: @unchecked Sendable {
    private let lock = NSLock()
    private let plan: IngestFaultPlan
    private(set) var distinct = Set<UUID>()
    private(set) var received = 0

    init(seed: UInt64) { plan = IngestFaultPlan(seed: seed) }

    var distinctCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return distinct.count
    }

    func handle(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        guard request.method == "POST", request.path == "/api/v1/events",
              request.headers["authorization"] == "Bearer e2e-key" else {
            plan.note("401")
            return .respond(status: 401, headers: [:], body: Data("{\"error\":\"unauthorized\"}".utf8))
        }
        switch plan.next() {
        case .timeOut(let storing):
            if storing { _ = store(request) }
            return .hang
        case .fail(let reply):
            return reply
        case .accept(let partially):
            guard var ids = store(request) else {
                plan.note("400")
                return .respond(status: 400, headers: [:], body: Data("{\"error\":\"bad body\"}".utf8))
            }
            if partially { ids = Array(ids.prefix(ids.count / 2)) }
            let body = try? JSONSerialization.data(withJSONObject: ["accepted": ids.map(\.uuidString), "rejected": [Any]()])
            return .respond(status: 200, headers: ["Content-Type": "application/json"], body: body ?? Data())
        }
    }

    /// Reads the batch and records its events; `nil` when the body is unreadable.
    private func store(_ request: LoopbackHTTPServer.Request) -> [UUID]? {
        var body = request.body
        if request.headers["content-encoding"] == "gzip" {
            guard let plain = try? Gzip.decompress(body, limit: 64 << 20) else { return nil }
            body = plain
        }
        // Only the ids matter here; Foundation's parser keeps a debug build's server fast
        // enough to answer within the client's timeout.
        var ids: [UUID] = []
        for line in body.split(separator: 0x0A) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                  let text = object["id"] as? String, let id = UUID(uuidString: text) else { return nil }
            ids.append(id)
        }
        lock.lock()
        received += ids.count
        distinct.formUnion(ids)
        lock.unlock()
        return ids
    }

    var summary: String {
        lock.lock()
        defer { lock.unlock() }
        return "distinct \(distinct.count), received \(received), outcomes \(plan.summary)"
    }
}

@Suite("Uploader end to end over real HTTP")
struct EndToEndUploadTests {
    @Test("10,000 events reach a server that fails 30%, times out 10% and rate-limits 5%: exactly 10,000 distinct arrive")
    func flakyServer() throws {
        let ingest = FlakyIngest(seed: 2026)
        let server = try LoopbackHTTPServer { ingest.handle($0) }
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "e2e")
        let store = EventStore(directory: directory.url)
        defer { store.close() }
        var sent = Set<UUID>()
        for index in 0..<10_000 {
            // No crash events here: each would wait for its own fsync.
            let type = EventType.allCases[index % 8] == .crash ? EventType.log : EventType.allCases[index % 8]
            let event = SampleEvents.make(type, index: index)
            sent.insert(event.id)
            store.enqueue(event)
            // Stay under the store's pending limit: a producer this fast would overflow it.
            if index % 1000 == 999 { store.flush() }
        }
        #expect(store.flush())
        #expect(store.statistics().storedRecords == 10_000)

        // The real policy shape, with time running 1000x faster: 30 s backoffs take 30 ms,
        // `Retry-After: 2` takes 2 ms. The request timeout is real time (URLSession's).
        var policy = UploadPolicy()
        policy.requestTimeoutSeconds = 1
        let uploader = EventUploader(store: store, endpoint: EventUploader.Endpoint(baseURL: server.baseURL, ingestKey: "e2e-key"),
                                     http: URLSessionHTTPClient(), policy: policy,
                                     scheduler: DispatchUploadScheduler(timeScale: 0.001), seed: 5)
        uploader.start()
        defer { uploader.stop() }
        let deadline = Date().addingTimeInterval(Double(ProcessInfo.processInfo.environment["E2E_DEADLINE"] ?? "120") ?? 120)
        while Date() < deadline, ingest.distinctCount < 10_000 || store.statistics().storedRecords > 0 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let statistics = uploader.statistics()
        print("end-to-end uploader: \(statistics)")
        #expect(ingest.distinctCount == 10_000, "\(ingest.summary)")
        #expect(ingest.distinct.isSubset(of: sent))
        #expect(store.statistics().storedRecords == 0)
        #expect(statistics.eventsAccepted >= 10_000)
        // The failures were really met and handled.
        #expect(statistics.malformedResponses > 0, "\(statistics.retries)")
        #expect((statistics.retries[.timeout] ?? 0) > 0, "\(statistics.retries)")
        #expect((statistics.retries[.rateLimited] ?? 0) > 0, "\(statistics.retries)")
        #expect((statistics.retries[.serverError] ?? 0) > 0, "\(statistics.retries)")
        #expect(statistics.droppedBatches == 0 && statistics.droppedEvents == 0)
        print("end-to-end: \(ingest.summary); requests \(statistics.requests), body \(statistics.bodyBytes) B, gzip \(statistics.compressedBytes) B")
    }
}
