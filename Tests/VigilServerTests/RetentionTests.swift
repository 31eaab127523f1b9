import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// `--retention-days`: old raw events go in small batches; roll-ups and issues stay.
    @Suite("retention")
    struct RetentionTests {
        /// Everything retention must leave alone: the roll-up tables' rows and the issues'
        /// counters, versions and users, as text to compare.
        static func kept(_ store: ServerStore) throws -> [String] {
            try store.database.read { connection in
                var lines: [String] = []
                for (table, order) in [("rollup_sums", "project_id, metric, dimension, app_version, day"),
                                       ("rollup_histograms", "project_id, metric, dimension, app_version, day, bucket"),
                                       ("rollup_sketches", "project_id, metric, dimension, app_version, day, register"),
                                       ("issue_versions", "issue_id, app_version")] {
                    for row in try connection.query("SELECT * FROM \(table) ORDER BY \(order)") {
                        lines.append(table + ": " + (0..<row.values.count).map { "\(row[$0])" }.joined(separator: "|"))
                    }
                }
                for row in try connection.query("""
                    SELECT id, event_count, user_count, first_seen, last_seen, status FROM issues ORDER BY id
                    """) {
                    lines.append("issue: " + (0..<row.values.count).map { "\(row[$0])" }.joined(separator: "|"))
                }
                return lines
            }
        }

        static func rawEvents(_ store: ServerStore) throws -> Int64 {
            try store.database.read { try $0.scalar("SELECT COUNT(*) FROM apm_event").int64 ?? -1 }
        }

        /// `count` events of several types (hangs of one issue among them) at `time`.
        static func events(_ count: Int, at time: Date, version: String) -> [Event] {
            (0..<count).map { index in
                var event = index % 3 == 0 ? ProcessingTestsFixture.hang(index: 0)
                    : SampleEvents.make([.network, .frames, .launch, .log][index % 4], index: index)
                event.id = UUID()
                event.session = UUID()
                event.time = time.addingTimeInterval(Double(index))
                event.app.version = version
                return event
            }
        }

        @Test("with 1 day kept, older events go in batches of the given size; roll-ups, issue counts and a recount do not change",
              arguments: StoreKind.allCases)
        func prunesOldEventsOnly(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let old = Self.events(95, at: Date().addingTimeInterval(-3 * 86_400), version: "1.0")
            let recent = Self.events(40, at: Date().addingTimeInterval(-3_600), version: "1.1")
            for chunk in [Array(old[0..<50]), Array(old[50...]), recent] {
                #expect(try server.postEvents(chunk).status == 200)
            }
            try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
            let before = try Self.kept(server.store)
            let issue = try #require(try server.store.issues(projectID: server.project.id).first)
            #expect(issue.events == 32 + 14)
            #expect(try Self.rawEvents(server.store) == 135)

            let pruner = RetentionPruner(store: server.store, days: 1, batchRows: 10, pauseSeconds: 0)
            let pass = try pruner.prunePass()
            #expect(pass.events == 95)
            // Per type, full batches of 10 and one partial: never more than 10 rows in a transaction.
            #expect(pass.batches >= 10)
            #expect(pass.largestBatch == 10)
            #expect(try Self.rawEvents(server.store) == 40)
            #expect(try server.store.eventCounts(projectID: server.project.id) == (pending: 0, processed: 40, reprocess: 0))
            #expect(try server.store.scannedEventCounts(projectID: server.project.id) == (pending: 0, processed: 40, reprocess: 0))
            #expect(try Self.kept(server.store) == before)
            #expect(try pruner.prunePass().events == 0)

            // A recount from the remaining events (what re-processing does) still counts the pruned ones.
            try server.store.database.write { try ServerStore.recountIssue(issue.id, on: $0) }
            #expect(try Self.kept(server.store) == before)
            #expect(try server.store.issues(projectID: server.project.id).first?.users == issue.users)
        }

        @Test("vigil serve --retention-days prunes in the background while ingest runs", arguments: StoreKind.allCases)
        func prunesWhileIngesting(kind: StoreKind) throws {
            let server = try TestServer(kind, configure: {
                $0.workers = 1
                $0.retentionDays = 1
                $0.retentionBatchRows = 25
                $0.retentionPauseSeconds = 0.001
            })
            let deadline = Date().addingTimeInterval(60)
            var posted = 0
            // Old and recent events arrive together for a while; the pruner takes the old ones.
            for round in 0..<12 {
                let old = Self.events(30, at: Date().addingTimeInterval(-2 * 86_400 - Double(round) * 100), version: "1.0")
                let recent = Self.events(10, at: Date().addingTimeInterval(-60), version: "1.1")
                let answer = try server.postEvents(old + recent)
                #expect(answer.status == 200)
                posted += 10
            }
            server.app.retention?.stop()
            // The pruner sleeps between passes; one more pass leaves only the recent events.
            _ = try RetentionPruner(store: server.store, days: 1, batchRows: 25, pauseSeconds: 0).prunePass()
            while try Self.rawEvents(server.store) != Int64(posted), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(try Self.rawEvents(server.store) == Int64(posted))
            let metrics = try server.client.get("/metrics").text
            #expect(metrics.contains("vigil_events_pruned_total "))
            let issue = try #require(try server.store.issues(projectID: server.project.id).first)
            #expect(issue.events == 12 * (10 + 4))
        }
    }
}
