import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// Editing, pausing and resuming rules; alerts for ignored issues that come back.
    @Suite("alerts: editing, pausing, comebacks")
    struct AlertRuleLifecycleTests {
        static let admin = ["Authorization": "Bearer \(TestServer.adminToken)", "Content-Type": "application/json"]

        static func post(_ server: TestServer, _ path: String, _ fields: [String: Any]? = nil) throws -> HTTPTestClient.Response {
            try server.client.post(path, fields.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data(), headers: admin)
        }

        /// A processor that writes alerts in its transactions, as `vigil serve`'s does.
        static func alertingProcessor(_ store: ServerStore, batchSize: Int = 250) -> EventProcessor {
            EventProcessor(store: store, symbols: SymbolTableCache(engine: TableSymbolication()), batchSize: batchSize,
                           transitionHandler: { transitions, connection in try AlertEvaluator.fire(for: transitions, on: connection) })
        }

        @Test("a rule is edited through the API (threshold, window, webhook, cooldown), refused when the change is wrong, and keeps its secret",
              arguments: StoreKind.allCases)
        func editThroughTheAPI(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let rule = try AlertTests.createRule(server, ["name": "busy", "kind": "issue_events", "url": "http://127.0.0.1:9/a",
                                                          "threshold": 50])
            let id = try #require(rule["id"] as? Int)
            #expect(rule["windowMinutes"] as? Double == 60)
            let edited = try Self.post(server, "/api/v1/alerts/rules/\(id)", ["threshold": 2, "windowMinutes": 30,
                                                                             "url": "https://127.0.0.1:9/b", "cooldownMinutes": 5,
                                                                             "name": "busier"])
            #expect(edited.status == 200, "\(edited)")
            #expect(edited.json["threshold"] as? Double == 2)
            #expect(edited.json["windowMinutes"] as? Double == 30)
            #expect(edited.json["secret"] as? String == rule["secret"] as? String)
            let stored = try #require(try server.store.alertRules(projectID: server.project.id).first)
            #expect(stored.name == "busier" && stored.url == "https://127.0.0.1:9/b" && stored.threshold == 2)
            #expect(stored.windowSeconds == 1800 && stored.cooldownSeconds == 300 && stored.kind == .issueEvents)
            // What an edit may not do, each answered with the field named.
            for (fields, field) in [(["kind": "new_issue"], "kind"), (["windowMinutes": 0], "windowMinutes"),
                                    (["minSessions": 3], "minSessions"), (["url": "ftp://h/"], "url"), (["colour": "red"], "colour")]
                as [([String: Any], String)] {
                let answer = try Self.post(server, "/api/v1/alerts/rules/\(id)", fields)
                #expect(answer.status == 400, "\(fields)")
                #expect((answer.json["reason"] as? String)?.hasPrefix(field) == true || answer.text.contains(field), "\(answer.text)")
            }
            #expect(try Self.post(server, "/api/v1/alerts/rules/\(id)", [:]).status == 400)
            #expect(try Self.post(server, "/api/v1/alerts/rules/99999", ["threshold": 3]).status == 404)
            #expect(try server.client.post("/api/v1/alerts/rules/\(id)", Data(#"{"threshold": 3}"#.utf8)).status == 401)
            #expect(try server.client.post("/api/v1/alerts/rules/\(id)/pause", Data()).status == 401)
            // Unchanged by the refusals.
            #expect(try server.store.alertRules(projectID: server.project.id).first == stored)
        }

        @Test("a paused rule fires nothing; resumed, it fires for what happens after and not for what happened while paused",
              arguments: StoreKind.allCases)
        func pauseAndResume(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let url = "http://127.0.0.1:9/unused"
            let busy = try #require(try AlertTests.createRule(server, ["name": "busy", "kind": "issue_events", "url": url,
                                                                        "threshold": 4, "cooldownMinutes": 0])["id"] as? Int)
            let new = try #require(try AlertTests.createRule(server, ["name": "new", "kind": "new_issue", "url": url])["id"] as? Int)
            for id in [busy, new] {
                let paused = try Self.post(server, "/api/v1/alerts/rules/\(id)/pause")
                #expect(paused.status == 200 && paused.json["enabled"] as? Bool == false)
            }
            // Pausing twice changes nothing.
            #expect(try Self.post(server, "/api/v1/alerts/rules/\(busy)/pause").json["enabled"] as? Bool == false)
            let evaluator = AlertEvaluator(store: server.store)
            // While paused: a new issue with 10 events in the last hour fires nothing, neither
            // from the processing transaction nor from the evaluator.
            #expect(try server.postEvents((0..<10).map { crashNow($0) }).status == 200)
            _ = try server.app.context.processor.drain()
            #expect(try evaluator.evaluate() == 0)
            #expect(try server.store.alerts(projectID: server.project.id).isEmpty)

            for id in [busy, new] {
                let resumed = try Self.post(server, "/api/v1/alerts/rules/\(id)/resume")
                #expect(resumed.status == 200 && resumed.json["enabled"] as? Bool == true)
                #expect(resumed.json["resumedAt"] != nil)
            }
            // Resumed: the 10 events and the issue came while it was paused.
            #expect(try evaluator.evaluate() == 0)
            #expect(try server.store.alerts(projectID: server.project.id).isEmpty)
            // Three events after the resume stay under 4; the fifth goes over.
            let after = Date().addingTimeInterval(0.5)
            #expect(try server.postEvents((10..<13).map { crashNow($0, at: after) }).status == 200)
            _ = try server.app.context.processor.drain()
            #expect(try evaluator.evaluate() == 0)
            #expect(try server.postEvents((13..<15).map { crashNow($0, at: after) }).status == 200)
            _ = try server.app.context.processor.drain()
            #expect(try evaluator.evaluate() == 1)
            let alerts = try server.store.alerts(projectID: server.project.id)
            #expect(alerts.map(\.ruleID) == [Int64(busy)])
            #expect(alerts.first?.text.contains("had 5 events in the last hour") == true)
            // A new issue after the resume is reported by the new-issue rule.
            var hang = ProcessingTestsFixture.hang(index: 0)
            hang.time = Date()
            #expect(try server.postEvents([hang]).status == 200)
            _ = try server.app.context.processor.drain()
            #expect(try server.store.alerts(projectID: server.project.id).map(\.ruleID).sorted() == [Int64(busy), Int64(new)])
        }

        @Test("the Alerts page's edit, pause and resume forms need the session's form token; with it they change the rule",
              arguments: StoreKind.allCases)
        func dashboardForms(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let session = server.app.context.authenticator.makeSession()
            let cookie = ["Cookie": "\(Authenticator.sessionCookie)=\(session)", "Content-Type": "application/x-www-form-urlencoded"]
            let token = server.app.context.authenticator.csrfToken(forSession: session)
            let id = try #require(try AlertTests.createRule(server, ["name": "busy", "kind": "issue_events",
                                                                     "url": "http://127.0.0.1:9/a", "threshold": 50])["id"] as? Int)
            var page = try server.client.get("/alerts", headers: cookie)
            #expect(page.status == 200)
            #expect(page.text.contains("action=\"/alerts/rules/\(id)/edit\""))
            #expect(page.text.contains("action=\"/alerts/rules/\(id)/pause\""))
            #expect(page.text.contains("name=\"windowMinutes\" size=\"6\" inputmode=\"decimal\" value=\"60\""))
            let edit = "name=busy&url=http%3A%2F%2F127.0.0.1%3A9%2Fb&threshold=7&windowMinutes=15&cooldownMinutes=10"
            for path in ["/alerts/rules/\(id)/edit", "/alerts/rules/\(id)/pause", "/alerts/rules/\(id)/resume"] {
                #expect(try server.client.post(path, Data(edit.utf8), headers: cookie).status == 403, "\(path)")
                #expect(try server.client.post(path, Data((edit + "&csrf=wrong").utf8), headers: cookie).status == 403, "\(path)")
            }
            #expect(try server.client.post("/alerts/rules/\(id)/edit", Data((edit + "&csrf=\(token)").utf8), headers: cookie).status == 303)
            var rule = try #require(try server.store.alertRules(projectID: server.project.id).first)
            #expect(rule.threshold == 7 && rule.windowSeconds == 900 && rule.cooldownSeconds == 600 && rule.url == "http://127.0.0.1:9/b")
            // A bad value is refused with its field, and nothing changes.
            let bad = try server.client.post("/alerts/rules/\(id)/edit", Data("threshold=lots&csrf=\(token)".utf8), headers: cookie)
            #expect(bad.status == 400 && bad.text.contains("threshold"))
            #expect(try server.client.post("/alerts/rules/\(id)/pause", Data("csrf=\(token)".utf8), headers: cookie).status == 303)
            rule = try #require(try server.store.alertRules(projectID: server.project.id).first)
            #expect(!rule.enabled && rule.threshold == 7)
            page = try server.client.get("/alerts", headers: cookie)
            #expect(page.text.contains("<span class=\"badge worse\">paused</span>"))
            #expect(page.text.contains("action=\"/alerts/rules/\(id)/resume\""))
            #expect(try server.client.post("/alerts/rules/\(id)/resume", Data("csrf=\(token)".utf8), headers: cookie).status == 303)
            #expect(try server.store.alertRules(projectID: server.project.id).first?.enabled == true)
            #expect(try server.client.get("/alerts", headers: cookie).text.contains("<span class=\"badge better\">active</span>"))
        }

        @Test("an ignored issue that comes back (its N more events, or its date passed) fires the reopened rules once per comeback, and no regression rule",
              arguments: StoreKind.allCases)
        func comebackAlerts(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let url = "http://127.0.0.1:9/unused"
            let back = try #require(try AlertTests.createRule(server, ["name": "back", "kind": "reopened", "url": url,
                                                                       "cooldownMinutes": 0])["id"] as? Int)
            _ = try AlertTests.createRule(server, ["name": "regressed", "kind": "regression", "url": url, "cooldownMinutes": 0])
            let processor = Self.alertingProcessor(server.store)
            func hangs(_ count: Int) throws {
                #expect(try server.postEvents((0..<count).map { _ in IssueWorkflowTests.hang(version: "1.0") }).status == 200)
                try processor.drain()
            }
            try hangs(2)
            let issue = try #require(try server.store.issues(projectID: server.project.id).first)
            #expect(try Self.post(server, "/api/v1/issues/\(issue.id)/ignore", ["events": 3]).status == 200)
            try hangs(2)
            #expect(try server.store.alerts(projectID: server.project.id).isEmpty)
            try hangs(1)
            var alerts = try server.store.alerts(projectID: server.project.id)
            #expect(alerts.count == 1)
            #expect(alerts.first?.ruleID == Int64(back))
            #expect(alerts.first?.text.contains("ignored issue #\(issue.id) came back") == true)
            // Open now: more events fire nothing.
            try hangs(3)
            #expect(try server.store.alerts(projectID: server.project.id).count == 1)
            // Ignored until a date that has passed: the next event brings it back, and alerts again.
            _ = try server.store.changeIssueState(projectID: server.project.id, issueID: issue.id,
                                                  action: .ignoreUntil(Date().addingTimeInterval(-5)), actor: "test",
                                                  now: Date().addingTimeInterval(-10))
            try hangs(1)
            alerts = try server.store.alerts(projectID: server.project.id)
            #expect(alerts.count == 2)
            #expect(Set(alerts.map(\.ruleID)) == [Int64(back)])
            // The body names its type.
            let body = try server.store.database.read { try $0.scalar("SELECT body FROM alert_outbox LIMIT 1").string }
            let json = try #require(try JSONSerialization.jsonObject(with: Data((body ?? "").utf8)) as? [String: Any])
            #expect(json["type"] as? String == "reopened")
            #expect((json["issue"] as? [String: Any])?["id"] as? Int == Int(issue.id))
            // Paused, a comeback fires nothing.
            #expect(try Self.post(server, "/api/v1/alerts/rules/\(back)/pause").status == 200)
            #expect(try Self.post(server, "/api/v1/issues/\(issue.id)/ignore", ["events": 1]).status == 200)
            try hangs(1)
            #expect(try server.store.issue(projectID: server.project.id, id: issue.id)?.summary.state.status == .open)
            #expect(try server.store.alerts(projectID: server.project.id).count == 2)
        }

        @Test("rules made before schema 11 keep their values after the migration: an hour's window, never resumed, editable",
              arguments: StoreKind.allCases)
        func migrationKeepsRules(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "rules-11")
            let location = try kind.freshLocation(in: directory)
            let old = try ServerStore.open(location)
            let (project, _) = try old.ensureProject(name: "default", now: Date())
            let made = try old.createAlertRule(projectID: project.id, AlertRuleDraft(
                name: "busy", kind: "issue_events", url: "http://127.0.0.1:9/", threshold: 3), now: Date())
            try old.database.write { connection in
                try SchemaMigrationTests.undoVersionEleven(connection)
                try connection.execute("DELETE FROM vigil_schema WHERE version > 10")
            }
            old.database.close()
            let store = try ServerStore.open(location)
            defer { store.database.close() }
            #expect(try store.schemaVersion() == Schema.currentVersion)
            let rule = try #require(try store.alertRules(projectID: project.id).first)
            #expect(rule == made)
            #expect(rule.windowSeconds == 3600 && rule.resumedAt == nil && rule.enabled)
            #expect(try store.updateAlertRule(projectID: project.id, id: rule.id, AlertRuleChange(windowMinutes: 5)).windowSeconds == 300)
        }

        @Test("two servers on one PostgreSQL database processing a comeback at once fire one alert, with no cooldown to hide a second")
        func comebackOnceWithTwoServers() throws {
            let directory = try TemporaryDirectory(prefix: "comeback-two")
            let location = try StoreKind.postgres.freshLocation(in: directory)
            let first = try ServerStore.open(location, connections: 4)
            let second = try ServerStore.open(location, connections: 4)
            defer { first.database.close(); second.database.close() }
            let (project, _) = try first.ensureProject(name: "default", now: Date())
            let rule = try first.createAlertRule(projectID: project.id, AlertRuleDraft(
                name: "back", kind: "reopened", url: "http://127.0.0.1:9/", cooldownMinutes: 0), now: Date())
            let processors = [Self.alertingProcessor(first, batchSize: 5), Self.alertingProcessor(second, batchSize: 5)]
            let ingestor = EventIngestor(store: first, clock: SystemClock(), decoder: .tape, processor: nil)
            func storeAndProcess(_ count: Int) throws {
                let events = (0..<count).map { _ in IssueWorkflowTests.hang(version: "1.0") }
                #expect(try ingestor.ingest(try EventJSON.makeEncoder().encode(events), projectID: project.id).stored == count)
                let failures = IssueWorkflowTests.drainAtOnce(processors)
                #expect(failures.isEmpty, "\(failures.first ?? "")")
            }
            try storeAndProcess(10)
            let issue = try #require(try first.issues(projectID: project.id).first)
            _ = try second.changeIssueState(projectID: project.id, issueID: issue.id, action: .ignoreUntilEvents(25), actor: "test",
                                            now: Date())
            try storeAndProcess(70)
            #expect(try first.issue(projectID: project.id, id: issue.id)?.summary.state.status == .open)
            let alerts = try second.alerts(projectID: project.id)
            #expect(alerts.count == 1, "\(alerts.map(\.text))")
            #expect(alerts.first?.ruleID == rule.id && alerts.first?.subject == "issue:\(issue.id)")
        }
    }
}

@Suite("alerts: window in the body")
struct AlertWindowBodyTests {
    static func rule(window: Int64?) -> AlertRule {
        AlertRule(id: 7, projectID: 1, name: "busy", kind: .issueEvents, threshold: 3, minSessions: nil, cooldownSeconds: 60,
                  windowSeconds: window, url: "http://127.0.0.1:9/", secret: "whsec_x", enabled: true, createdAt: Date())
    }

    static func body(_ rule: AlertRule) throws -> [String: Any] {
        let alert = Alert(rule: rule, projectName: "shop", subject: "issue:4",
                          issue: Alert.IssueFacts(id: 4, kind: "crash", title: "boom", fingerprint: "f", eventsInWindow: 9),
                          value: 9, createdAt: Date())
        return try #require(try JSONSerialization.jsonObject(with: alert.body()) as? [String: Any])
    }

    @Test("an hour's window keeps the first schema's eventsLastHour beside eventsInWindow; another window says its length")
    func windowFields() throws {
        let hour = try Self.body(Self.rule(window: 3600))
        #expect((hour["issue"] as? [String: Any])?["eventsLastHour"] as? Int == 9)
        #expect((hour["issue"] as? [String: Any])?["eventsInWindow"] as? Int == 9)
        #expect((hour["text"] as? String)?.contains("had 9 events in the last hour") == true)
        let quarter = try Self.body(Self.rule(window: 900))
        #expect((quarter["issue"] as? [String: Any])?["eventsLastHour"] == nil)
        #expect((quarter["issue"] as? [String: Any])?["eventsInWindow"] as? Int == 9)
        #expect((quarter["rule"] as? [String: Any])?["windowSeconds"] as? Int == 900)
        #expect((quarter["text"] as? String)?.contains("had 9 events in the last 15 minutes") == true)
        #expect(Alert.window(7200) == "2 hours" && Alert.window(60) == "1 minute" && Alert.window(90) == "90 seconds")
    }
}

@Suite("dashboard table")
struct DashboardTableTests {
    @Test("the shared table writes the markup the pages wrote by hand: number columns right-aligned, values escaped, a sentence when empty")
    func markup() {
        var html = HTML()
        DashboardTable.render([("a<b", 3)], columns: [.text("Image"), .number("Events"), .text("Id")], empty: "none", into: &html) { item in
            [.text(item.0), .markup("\(item.1)"), .code("x&y")]
        }
        #expect(html.output == "<table><thead><tr><th>Image</th><th class=\"num\">Events</th><th>Id</th></tr></thead><tbody>"
                + "<tr><td>a&lt;b</td><td class=\"num\">3</td><td><code>x&amp;y</code></td></tr></tbody></table>")
        var empty = HTML()
        DashboardTable.render([Int](), columns: [.text("Image")], empty: "Nothing uploaded yet.", into: &empty) { _ in [] }
        #expect(empty.output == "<p class=\"empty\">Nothing uploaded yet.</p>")
    }
}
