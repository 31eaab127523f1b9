import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// `event_counts`: the numbers `/metrics` and the dashboard show, kept by the transactions
    /// that store and process events instead of counted from `apm_event`.
    @Suite("event counts")
    struct EventCountsTests {
        /// The value of the unlabeled metric `name` in a Prometheus text.
        static func metric(_ name: String, in text: String) -> Double? {
            for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
                return Double(line.split(separator: " ").last ?? "")
            }
            return nil
        }

        @Test("the counts are right after ingest, processing, re-queueing and a restart", arguments: StoreKind.allCases)
        func countsSurviveRestart(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "counts")
            var options = ServerOptions(database: try kind.freshLocation(in: directory), spoolDirectory: directory.file("spool").path)
            options.adminToken = TestServer.adminToken
            options.workers = 0
            options.connections = 4
            options.http = HTTPServerConfiguration(threads: 2)
            let first = try ServerApplication.start(options)
            let key = try #require(first.firstStart.defaultProjectKey)
            let project = first.firstStart.defaultProject
            let client = HTTPTestClient(port: first.port)
            let events = (0..<230).map { SampleEvents.make([.network, .frames, .launch, .log][$0 % 4], index: $0) }
            for start in stride(from: 0, to: events.count, by: 50) {
                let body = try EventJSON.makeEncoder().encode(Array(events[start..<min(start + 50, events.count)]))
                let answer = try client.post("/api/v1/events", body, headers: ["Authorization": "Bearer \(key)",
                                                                              "Content-Type": "application/json"])
                #expect(answer.status == 200)
            }
            // A batch sent twice stores nothing new and counts nothing twice.
            let again = try client.post("/api/v1/events", try EventJSON.makeEncoder().encode(Array(events[0..<50])),
                                        headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"])
            #expect(again.status == 200)
            let store = first.context.store
            #expect(try store.eventCounts(projectID: project.id) == (pending: 230, processed: 0, reprocess: 0))
            // Two batches processed, the rest left waiting.
            let processor = EventProcessor(store: store, symbols: SymbolTableCache(engine: nil), batchSize: 100)
            #expect(try processor.processBatch() == 100)
            #expect(try processor.processBatch() == 100)
            #expect(try store.eventCounts(projectID: project.id) == (pending: 30, processed: 200, reprocess: 0))
            // Events that need symbols are queued again when the symbols arrive.
            let slice = SymbolSlice(debugID: "82D13D98-219E-3040-B62A-07A297007A7C", arch: "arm64", kind: "test", name: "App",
                                    symcache: Data([1]))
            let requeued = try store.database.write { connection in
                try connection.execute("""
                    INSERT INTO event_missing_symbols (project_id, debug_id, event_id)
                    SELECT project_id, ?, id FROM apm_event WHERE project_id = ? AND state = 1 ORDER BY id LIMIT 7
                    """, [.text(slice.debugID), .integer(project.id)])
            }
            #expect(requeued == 7)
            #expect(try store.storeSymbols(projectID: project.id, [slice]) == 7)
            #expect(try store.eventCounts(projectID: project.id) == (pending: 30, processed: 193, reprocess: 7))
            let metrics = try client.get("/metrics").text
            #expect(Self.metric("vigil_events_pending", in: metrics) == 37)
            #expect(Self.metric("vigil_events_stored", in: metrics) == 230)
            first.stop()

            let second = try ServerApplication.start(options)
            defer { second.stop() }
            let counts = try second.context.store.eventCounts(projectID: project.id)
            #expect(counts == (pending: 30, processed: 193, reprocess: 7))
            #expect(try second.context.store.scannedEventCounts(projectID: project.id) == counts)
            let restarted = try HTTPTestClient(port: second.port).get("/metrics").text
            #expect(Self.metric("vigil_events_pending", in: restarted) == 37)
            #expect(Self.metric("vigil_events_stored", in: restarted) == 230)
            try second.context.processor.drain()
            #expect(try second.context.store.eventCounts(projectID: project.id) == (pending: 0, processed: 230, reprocess: 0))
            #expect(try second.context.store.scannedEventCounts(projectID: project.id) == (pending: 0, processed: 230, reprocess: 0))
        }

        @Test("with --metrics-token, /metrics needs it (or the admin token) and says so with 401")
        func metricsToken() throws {
            let server = try TestServer(.sqlite) { $0.metricsToken = "vm_scrape" }
            let anonymous = try server.client.get("/metrics")
            #expect(anonymous.status == 401)
            #expect(anonymous.headers["www-authenticate"] == "Bearer")
            #expect(try server.client.get("/metrics", headers: ["Authorization": "Bearer wrong"]).status == 401)
            let scraped = try server.client.get("/metrics", headers: ["Authorization": "Bearer vm_scrape"])
            #expect(scraped.status == 200)
            #expect(scraped.text.contains("vigil_events_stored 0"))
            #expect(try server.client.get("/metrics", headers: ["Authorization": "Bearer \(TestServer.adminToken)"]).status == 200)
            // Without the option it stays open, as before.
            let open = try TestServer(.sqlite)
            #expect(try open.client.get("/metrics").status == 200)
        }
    }
}
