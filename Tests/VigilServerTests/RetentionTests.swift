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

        @Test("finished alerts and delivery-log rows older than the horizon go in batches; pending alerts, their log and recent rows stay; counted in /metrics",
              arguments: StoreKind.allCases)
        func prunesFinishedAlerts(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let store = server.store
            let rule = try store.createAlertRule(projectID: server.project.id, AlertRuleDraft(
                name: "busy", kind: "issue_events", url: "http://127.0.0.1:9/", threshold: 1), now: Date())
            let old = Date().addingTimeInterval(-3 * 86_400), recent = Date().addingTimeInterval(-3_600)
            /// Fires one alert per subject at `time` and makes one attempt at it: delivered, or failed and due again later.
            func fire(_ subjects: Range<Int>, at time: Date, delivered: Bool) throws {
                for subject in subjects {
                    #expect(try store.fireAlert(Alert(rule: rule, projectName: "default", subject: "issue:\(subject)", createdAt: time)))
                }
                let claimed = try store.claimDueAlerts(now: time, leaseUntil: time.addingTimeInterval(30), limit: 1000)
                #expect(claimed.count == subjects.count)
                for alert in claimed {
                    try store.recordAlertAttempt(alert, at: time, status: delivered ? 200 : 500, error: delivered ? nil : "500",
                                                 durationMs: 1, delivered: delivered,
                                                 retryAt: delivered ? nil : Date().addingTimeInterval(3_600))
                }
            }
            try fire(0..<30, at: old, delivered: true)
            try fire(30..<31, at: old, delivered: false)
            try fire(31..<36, at: recent, delivered: true)
            #expect(try store.alerts(projectID: server.project.id, limit: 1000).count == 36)
            let metrics = ServerMetrics()
            let pruner = RetentionPruner(store: store, days: nil, alertDays: 1, batchRows: 7, pauseSeconds: 0, metrics: metrics)
            let pass = try pruner.prunePass()
            #expect(pass.alerts == 30 && pass.deliveries == 30 && pass.events == 0)
            #expect(pass.largestBatch == 7)
            let left = try store.alerts(projectID: server.project.id, limit: 1000)
            #expect(left.count == 6)
            #expect(left.filter { $0.state == "pending" }.map(\.subject) == ["issue:30"])
            let log = try store.alertDeliveries(projectID: server.project.id, limit: 1000)
            #expect(log.count == 6)
            #expect(Set(log.map(\.alertID)) == Set(left.map(\.id)))
            #expect(try pruner.prunePass() == RetentionPruner.PassResult())
            let text = metrics.prometheusText()
            #expect(text.contains("vigil_alert_rows_pruned_total{table=\"alert_outbox\"} 30"))
            #expect(text.contains("vigil_alert_rows_pruned_total{table=\"alert_deliveries\"} 30"))
            // The new-issue rules' memory (cooldown rows) stays.
            #expect(try store.database.read { try $0.scalar("SELECT COUNT(*) FROM alert_cooldowns").int64 } == 36)
        }

        @Test("vigil serve prunes alerts with --retention-days, or --alert-retention-days alone; neither keeps them",
              arguments: [StoreKind.sqlite])
        func alertHorizonFollowsTheOptions(kind: StoreKind) throws {
            #expect(try TestServer(kind).app.retention == nil)
            #expect(try TestServer(kind) { $0.alertRetentionDays = 30 }.app.retention != nil)
            #expect(try TestServer(kind) { $0.retentionDays = 30 }.app.retention != nil)
        }

        @Test("an issue whose latest event is pruned points to its newest event kept, or to none; its page then says so without a link; the next event is its latest again",
              arguments: StoreKind.allCases)
        func latestEventAfterPruning(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let old = Date().addingTimeInterval(-3 * 86_400)
            func hang(at time: Date) -> Event {
                var event = ProcessingTestsFixture.hang(index: 0)
                event.id = UUID()
                event.session = UUID()
                event.time = time
                return event
            }
            let olds = (0..<5).map { hang(at: old.addingTimeInterval(Double($0))) }
            #expect(try server.postEvents(olds).status == 200)
            let processor = EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication()))
            try processor.drain()
            let issue = try #require(try server.store.issues(projectID: server.project.id).first)
            let latest = try #require(try server.store.issue(projectID: server.project.id, id: issue.id)?.lastEventID)
            #expect(latest == olds[4].id.uuidString.lowercased() || latest == olds[4].id.uuidString)
            // A late upload of an even older event, not yet processed: pruning leaves it (and it has no issue yet).
            let older = hang(at: old.addingTimeInterval(-100))
            #expect(try server.postEvents([older]).status == 200)
            let pass = try RetentionPruner(store: server.store, days: 1, batchRows: 2, pauseSeconds: 0).prunePass()
            #expect(pass.events == 5)
            var detail = try #require(try server.store.issue(projectID: server.project.id, id: issue.id))
            #expect(detail.lastEventID == nil)
            #expect(detail.summary.events == 5)
            // The API and the page: no latest event, no link to one, and the page says why.
            let answer = try server.adminGet("/api/v1/issues/\(issue.id)")
            #expect(answer.status == 200)
            #expect(!answer.text.contains(latest))
            #expect((try server.adminGet("/api/v1/issues/\(issue.id)/events").json["events"] as? [Any])?.isEmpty == true)
            let page = try server.adminGet("/issues/\(issue.id)")
            #expect(page.status == 200)
            #expect(page.text.contains("id=\"no-events-kept\""))
            #expect(!page.text.contains(latest))
            // Processing the late event attaches it: it is the issue's latest event now, though older than the pruned ones.
            try processor.drain()
            detail = try #require(try server.store.issue(projectID: server.project.id, id: issue.id))
            #expect(detail.lastEventID?.lowercased() == older.id.uuidString.lowercased())
            #expect(detail.summary.events == 6)
            #expect(!(try server.adminGet("/issues/\(issue.id)").text.contains("id=\"no-events-kept\"")))

            // An issue whose recorded latest event goes while newer ones stay points to the newest kept.
            let recent = (0..<3).map { hang(at: Date().addingTimeInterval(-60 - Double($0))) }
            #expect(try server.postEvents(recent).status == 200)
            try processor.drain()
            let oldest = hang(at: old)
            #expect(try server.postEvents([oldest]).status == 200)
            try processor.drain()
            let oldestID = try server.store.database.read {
                try $0.scalar("SELECT id FROM apm_event WHERE occurred_at < ? ORDER BY occurred_at LIMIT 1",
                              [.integer(ServerStore.millis(Date().addingTimeInterval(-86_400)))]).string
            }
            try server.store.database.write {
                try $0.execute("UPDATE issues SET last_event_id = ? WHERE id = ?", [.optional(oldestID), .integer(issue.id)])
            }
            #expect(try RetentionPruner(store: server.store, days: 1, pauseSeconds: 0).prunePass().events == 2)
            detail = try #require(try server.store.issue(projectID: server.project.id, id: issue.id))
            #expect(detail.lastEventID?.lowercased() == recent[0].id.uuidString.lowercased())
        }

        @Test("vigil serve refuses bad --retention-batch, --retention-pause-factor and --alert-retention-days with a usage error naming the option")
        func retentionFlagsAreChecked() throws {
            let vigil = try BuildProducts.executable("vigil")
            let directory = try TemporaryDirectory(prefix: "serve-flags")
            let database = "sqlite:" + directory.file("vigil.sqlite").path
            for (flag, value) in [("--retention-batch", "0"), ("--retention-batch", "many"), ("--retention-batch", "100001"),
                                  ("--retention-pause-factor", "-1"), ("--retention-pause-factor", "nan"),
                                  ("--alert-retention-days", "0")] {
                let outcome = try ChildProcess.run(vigil, ["serve", "--db", database, "--port", "0", "--exit-after", "0", flag, value],
                                                   timeout: 60)
                #expect(outcome.exitStatus == 64, "\(flag) \(value): \(outcome)")
                #expect(outcome.standardError.contains(flag), "\(outcome.standardError)")
                #expect(outcome.standardError.contains("--retention-pause-factor  after each batch"), "the usage text lists it")
            }
            #expect(!FileManager.default.fileExists(atPath: directory.file("vigil.sqlite").path), "refused before opening the database")
        }
    }
}
