import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// A webhook receiver on loopback that fails the first `failures` requests with 500 and
/// accepts the rest, remembering every request.
final class AlertReceiver: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [LoopbackHTTPServer.Request] = []
    private var statuses: [Int] = []
    private var server: LoopbackHTTPServer?
    let failures: Int

    init(failures: Int) throws {
        self.failures = failures
        server = try LoopbackHTTPServer { [weak self] request in
            guard let self else { return .close }
            let status = lock.withLock { () -> Int in
                seen.append(request)
                let status = seen.count <= failures ? 500 : 200
                statuses.append(status)
                return status
            }
            return .respond(status: status, headers: ["Content-Type": "text/plain"], body: Data(status == 200 ? "ok".utf8 : "down".utf8))
        }
    }

    var url: String { "http://127.0.0.1:\(server?.port ?? 0)/hooks/vigil" }
    var requests: [LoopbackHTTPServer.Request] { lock.withLock { seen } }
    var answered: [Int] { lock.withLock { statuses } }
    /// Distinct alert ids among the accepted (2xx) deliveries: what a de-duplicating receiver keeps.
    var acceptedIDs: Set<String> {
        lock.withLock { Set(zip(seen, statuses).filter { $0.1 == 200 }.compactMap { $0.0.headers["vigil-alert-id"] }) }
    }

    func waitFor(_ condition: (AlertReceiver) -> Bool, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(self) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition(self)
    }

    func stop() { server?.stop() }
}

/// Independent checks of a delivery: the signature recomputed by `openssl dgst -hmac` (not by
/// Vigil's code) and the body's id against the header.
enum DeliveryCheck {
    static func opensslHMAC(key: String, message: Data) throws -> String {
        let directory = try TemporaryDirectory(prefix: "hmac")
        let file = directory.file("signed")
        try message.write(to: file)
        let outcome = try SpawnedProcess.run("/usr/bin/openssl", ["dgst", "-sha256", "-hmac", key, file.path], timeout: 30)
        guard let hex = outcome.standardOutput.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines),
              hex.count == 64 else {
            throw TestSupportError("openssl dgst said: \(outcome.standardOutput) \(outcome.standardError)")
        }
        return hex
    }

    /// Checks `Vigil-Signature: t=…,v1=…` as docs/api.md tells a receiver to.
    static func signatureVerifies(_ request: LoopbackHTTPServer.Request, secret: String) throws -> Bool {
        guard let header = request.headers["vigil-signature"] else { return false }
        var t: String?, v1: String?
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { t = String(pair[1]) } else if pair[0] == "v1" { v1 = String(pair[1]) }
        }
        guard let t, let v1, let seconds = Double(t), abs(seconds - Date().timeIntervalSince1970) < 300 else { return false }
        return try opensslHMAC(key: secret, message: Data("\(t).".utf8) + request.body) == v1
    }

    static func bodyID(_ request: LoopbackHTTPServer.Request) -> String? {
        (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["id"] as? String
    }
}

/// A crash event of one fingerprint happening now (index varies only its id).
func crashNow(_ index: Int, version: String = "3.2.0", at date: Date = Date()) -> Event {
    var event = SampleEvents.make(.crash, index: 0)
    event.id = UUID(uuidString: String(format: "00000000-0000-4000-9000-%012X", index))!
    event.time = date
    event.app.version = version
    return event
}

@Suite("alerts: signature and retry schedule")
struct AlertUnitTests {
    @Test("HMAC-SHA256 matches RFC 4231 test case 2 and openssl dgst -hmac")
    func hmacMatchesReferences() throws {
        let mac = WebhookSignature.hmacSHA256(key: Data("Jefe".utf8), message: Data("what do ya want for nothing?".utf8))
        #expect(SecretToken.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // A key longer than the 64-byte block is hashed first.
        let longKey = String(repeating: "k", count: 131)
        let message = Data("1764640000.{\"id\":\"x\"}".utf8)
        #expect(SecretToken.hex(WebhookSignature.hmacSHA256(key: Data(longKey.utf8), message: message))
                == (try DeliveryCheck.opensslHMAC(key: longKey, message: message)))
    }

    @Test("the signature header verifies with the secret and time it was made with, and not otherwise")
    func signatureHeader() throws {
        let body = Data("{\"id\":\"a\"}".utf8)
        let header = WebhookSignature.value(body: body, secret: "whsec_1", timestamp: 1_764_640_000)
        #expect(header.hasPrefix("t=1764640000,v1="))
        let now = Date(timeIntervalSince1970: 1_764_640_100)
        #expect(WebhookSignature.verify(header: header, body: body, secret: "whsec_1", now: now))
        #expect(!WebhookSignature.verify(header: header, body: body, secret: "whsec_2", now: now))
        #expect(!WebhookSignature.verify(header: header, body: Data("{\"id\":\"b\"}".utf8), secret: "whsec_1", now: now))
        #expect(!WebhookSignature.verify(header: header, body: body, secret: "whsec_1", now: now.addingTimeInterval(3600)))
    }

    @Test("retries back off exponentially to the cap and stop after the last attempt")
    func retrySchedule() {
        let schedule = AlertRetrySchedule(baseSeconds: 10, capSeconds: 60, maxAttempts: 6)
        #expect((1...6).map { schedule.delay(afterAttempt: $0) } == [10, 20, 40, 60, 60, nil])
    }

    @Test("a rule draft with a bad kind, URL or threshold is refused with the field named")
    func draftValidation() {
        #expect(throws: AlertRuleError.invalid(field: "kind", reason: "expected one of new_issue, regression, reopened, issue_events, crash_free_users, hang_rate")) {
            try AlertRuleDraft(name: "x", kind: "sometimes", url: "http://127.0.0.1/").validated()
        }
        #expect(throws: AlertRuleError.self) { try AlertRuleDraft(name: "x", kind: "new_issue", url: "ftp://host/").validated() }
        #expect(throws: AlertRuleError.self) { try AlertRuleDraft(name: "x", kind: "issue_events", url: "http://h/").validated() }
        #expect(throws: AlertRuleError.self) {
            try AlertRuleDraft(name: "x", kind: "crash_free_users", url: "http://h/", threshold: 120).validated()
        }
        #expect((try? AlertRuleDraft(name: " ops ", kind: "hang_rate", url: "https://h/x", threshold: 2).validated())?.minSessions == 1)
    }
}

extension BothStores {
    @Suite("alerts: rules, outbox, webhook delivery, cooldown")
    struct AlertTests {
        /// A server whose alert threads run fast: evaluation every 0.1 s, the outbox looked at every
        /// 0.05 s, retries after 0.1 s doubling.
        static func fastAlerts(_ options: inout ServerOptions) {
            options.alertWorkers = true
            options.alertIntervalSeconds = 0.1
            options.alertPollSeconds = 0.05
            options.alertRetry = AlertRetrySchedule(baseSeconds: 0.1, capSeconds: 1, maxAttempts: 8)
            options.alertTimeoutSeconds = 5
        }

        static func createRule(_ server: TestServer, _ fields: [String: Any]) throws -> [String: Any] {
            let response = try server.client.post("/api/v1/alerts/rules", try JSONSerialization.data(withJSONObject: fields),
                                                  headers: ["Authorization": "Bearer \(TestServer.adminToken)",
                                                            "Content-Type": "application/json"])
            guard response.status == 201 else { throw TestSupportError("creating a rule: \(response)") }
            return response.json
        }

        @Test("a receiver failing the first 3 deliveries gets exactly one accepted copy per alert id, after 3 failures + 1 success, signed",
              arguments: StoreKind.allCases)
        func deliveryWithRetries(kind: StoreKind) throws {
            let receiver = try AlertReceiver(failures: 3)
            defer { receiver.stop() }
            let server = try TestServer(kind, configure: Self.fastAlerts)
            let rule = try Self.createRule(server, ["name": "crashes to ops", "kind": "new_issue", "url": receiver.url])
            let secret = try #require(rule["secret"] as? String)
            #expect(try server.postEvents([crashNow(1)]).status == 200)
            _ = try server.app.context.processor.drain()
            #expect(receiver.waitFor({ $0.answered.count >= 4 }, seconds: 60), "deliveries: \(receiver.answered)")
            // Nothing more arrives once it was accepted.
            Thread.sleep(forTimeInterval: 0.5)
            #expect(receiver.answered == [500, 500, 500, 200])
            let requests = receiver.requests
            let ids = Set(requests.compactMap { $0.headers["vigil-alert-id"] })
            #expect(ids.count == 1)
            #expect(receiver.acceptedIDs == ids)
            for (index, request) in requests.enumerated() {
                #expect(request.method == "POST")
                #expect(DeliveryCheck.bodyID(request) == request.headers["vigil-alert-id"])
                #expect(request.headers["vigil-delivery-attempt"] == String(index + 1))
                #expect(try DeliveryCheck.signatureVerifies(request, secret: secret), "attempt \(index + 1)")
                #expect(!(try DeliveryCheck.signatureVerifies(request, secret: secret + "x")))
            }
            // Every attempt carried the same bytes; the body is the documented one.
            #expect(Set(requests.map(\.body)).count == 1)
            let body = try #require(try JSONSerialization.jsonObject(with: requests[0].body) as? [String: Any])
            #expect(body["type"] as? String == "new_issue")
            #expect((body["text"] as? String)?.contains("new crash issue") == true)
            #expect((body["issue"] as? [String: Any])?["kind"] as? String == "crash")
            // The outbox and the delivery log agree.
            let alerts = try server.store.alerts(projectID: server.project.id)
            #expect(alerts.map(\.state) == ["delivered"])
            #expect(alerts.first?.attempts == 4)
            let log = try server.store.alertDeliveries(projectID: server.project.id)
            #expect(log.map(\.status) == [200, 500, 500, 500])
            #expect(log.map(\.attempt) == [4, 3, 2, 1])
            let page = try server.adminGet("/alerts")
            #expect(page.status == 200)
            #expect(page.text.contains("delivered") && page.text.contains(ids.first ?? "?"))
        }

        @Test("new-issue and regression alerts come from the processing transaction: resolved in 1.0, an event from 1.0 fires nothing, one from 1.1 fires a regression delivered with its version",
              arguments: StoreKind.allCases)
        func regressionFromTransitions(kind: StoreKind) throws {
            let receiver = try AlertReceiver(failures: 0)
            defer { receiver.stop() }
            // Evaluation (the sweep for new issues) far apart: what arrives comes from the transitions.
            let server = try TestServer(kind) { options in
                Self.fastAlerts(&options)
                options.alertIntervalSeconds = 3600
            }
            let admin = ["Authorization": "Bearer \(TestServer.adminToken)", "Content-Type": "application/json"]
            _ = try Self.createRule(server, ["name": "new", "kind": "new_issue", "url": receiver.url])
            let regression = try Self.createRule(server, ["name": "back", "kind": "regression", "url": receiver.url,
                                                          "cooldownMinutes": 0])
            #expect(try server.postEvents([crashNow(1, version: "1.0")]).status == 200)
            _ = try server.app.context.processor.drain()
            #expect(receiver.waitFor({ $0.answered.count >= 1 }, seconds: 30))
            let issue = try #require(try server.store.issues(projectID: server.project.id).first)
            #expect(try server.client.post("/api/v1/issues/\(issue.id)/resolve", Data(#"{"version": "1.0"}"#.utf8),
                                           headers: admin).status == 200)
            #expect(try server.postEvents([crashNow(2, version: "1.0")]).status == 200)
            _ = try server.app.context.processor.drain()
            #expect(try server.postEvents([crashNow(3, version: "1.1")]).status == 200)
            _ = try server.app.context.processor.drain()
            #expect(receiver.waitFor({ $0.answered.count >= 2 }, seconds: 30))
            Thread.sleep(forTimeInterval: 0.5)
            let bodies = receiver.requests.compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
            #expect(bodies.map { $0["type"] as? String } == ["new_issue", "regression"])
            let regressed = try #require(bodies.last)
            #expect((regressed["issue"] as? [String: Any])?["regressedIn"] as? String == "1.1")
            #expect((regressed["issue"] as? [String: Any])?["id"] as? Int == Int(issue.id))
            #expect((regressed["rule"] as? [String: Any])?["id"] as? Int == regression["id"] as? Int)
            #expect((regressed["text"] as? String)?.contains("regressed in 1.1") == true)
        }

        @Test("1,000 events of one issue in a burst, evaluated all along (by two evaluators), fire one alert per rule",
              arguments: StoreKind.allCases)
        func cooldownUnderBurst(kind: StoreKind) throws {
            let server = try TestServer(kind) { $0.alertWorkers = false }
            let url = "http://127.0.0.1:9/unused"
            _ = try Self.createRule(server, ["name": "busy", "kind": "issue_events", "url": url, "threshold": 10, "cooldownMinutes": 60])
            _ = try Self.createRule(server, ["name": "new", "kind": "new_issue", "url": url])
            // A second store on the same database stands for a second server (PostgreSQL); on
            // SQLite a second evaluator on the same store.
            let second: ServerStore
            if kind == .postgres, case .postgres(let dbURL) = server.app.context.options.database {
                second = try ServerStore.open(.postgres(url: dbURL), connections: 4)
            } else {
                second = server.store
            }
            defer { if second !== server.store { second.database.close() } }
            let evaluators = [AlertEvaluator(store: server.store), AlertEvaluator(store: second)]
            let now = Date()
            for batch in 0..<20 {
                let events = (0..<50).map { crashNow(batch * 50 + $0, at: now.addingTimeInterval(Double(batch * 50 + $0) / 1000)) }
                #expect(try server.postEvents(events).status == 200)
                _ = try server.app.context.processor.drain()
                let group = DispatchGroup()
                let errors = Collected<String>()
                for evaluator in evaluators {
                    for _ in 0..<2 {
                        group.enter()
                        DispatchQueue.global().async {
                            do { try evaluator.evaluate() } catch { errors.append("\(error)") }
                            group.leave()
                        }
                    }
                }
                group.wait()
                #expect(errors.items.isEmpty, "\(errors.items.first?.prefix(300) ?? "")")
            }
            let issues = try server.store.issues(projectID: server.project.id, kind: nil, version: nil, order: .events, limit: 10)
            #expect(issues.map(\.events) == [1000])
            let alerts = try server.store.alerts(projectID: server.project.id)
            #expect(alerts.count == 2, "\(alerts.map(\.text))")
            let rules = try server.store.alertRules(projectID: server.project.id)
            #expect(Set(alerts.map(\.ruleID)) == Set(rules.map(\.id)))
            #expect(alerts.allSatisfy { $0.subject == "issue:\(issues[0].id)" })
        }

        @Test("the cooldown row admits one alert among 400 concurrent attempts, and another once the window passed",
              arguments: StoreKind.allCases)
        func cooldownIsEnforcedByTheDatabase(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "cooldown")
            let location = try kind.freshLocation(in: directory)
            let first = try ServerStore.open(location, connections: 4)
            let second = kind == .postgres ? try ServerStore.open(location, connections: 4) : first
            defer { first.database.close(); if second !== first { second.database.close() } }
            let (project, _) = try first.ensureProject(name: "default")
            let rule = try first.createAlertRule(projectID: project.id, AlertRuleDraft(
                name: "busy", kind: "issue_events", url: "http://127.0.0.1:9/", threshold: 1, cooldownMinutes: 10), now: Date())
            let start = Date()
            let fired = Collected<Bool>()
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                let store = worker % 2 == 0 ? first : second
                for _ in 0..<50 {
                    let alert = Alert(rule: rule, projectName: "default", subject: "issue:1", value: 5, createdAt: start)
                    fired.append((try? store.fireAlert(alert)) ?? false)
                }
            }
            #expect(fired.items.count == 400)
            #expect(fired.items.filter { $0 }.count == 1)
            // Within the window: still nothing; after it: one more.
            let later = Alert(rule: rule, projectName: "default", subject: "issue:1", createdAt: start.addingTimeInterval(599))
            #expect(try first.fireAlert(later) == false)
            let after = Alert(rule: rule, projectName: "default", subject: "issue:1", createdAt: start.addingTimeInterval(601))
            #expect(try first.fireAlert(after) == true)
            // Another subject has its own window.
            #expect(try second.fireAlert(Alert(rule: rule, projectName: "default", subject: "issue:2", createdAt: start)) == true)
            #expect(try first.alerts(projectID: project.id).count == 3)
        }

        @Test("two deliverers (two servers on PostgreSQL) draining one outbox send each of 40 alerts once",
              arguments: StoreKind.allCases)
        func twoDeliverersShareTheOutbox(kind: StoreKind) throws {
            let receiver = try AlertReceiver(failures: 0)
            defer { receiver.stop() }
            let directory = try TemporaryDirectory(prefix: "outbox")
            let location = try kind.freshLocation(in: directory)
            let first = try ServerStore.open(location, connections: 4)
            let second = kind == .postgres ? try ServerStore.open(location, connections: 4) : first
            defer { first.database.close(); if second !== first { second.database.close() } }
            let (project, _) = try first.ensureProject(name: "default")
            let rule = try first.createAlertRule(projectID: project.id, AlertRuleDraft(
                name: "busy", kind: "issue_events", url: receiver.url, threshold: 1), now: Date())
            for issue in 1...40 {
                #expect(try first.fireAlert(Alert(rule: rule, projectName: "default", subject: "issue:\(issue)", createdAt: Date())))
            }
            let deliverers = [WebhookDeliverer(store: first), WebhookDeliverer(store: second)]
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                while ((try? deliverers[index].deliverDue(limit: 3)) ?? 0) > 0 {}
            }
            let ids = receiver.requests.compactMap { $0.headers["vigil-alert-id"] }
            #expect(ids.count == 40)
            #expect(Set(ids).count == 40)
            #expect(try first.alerts(projectID: project.id).allSatisfy { $0.state == "delivered" && $0.attempts == 1 })
        }

        /// 20 sessions of 20 users, now, 4 of them crashed; 60 s of foreground each and a hang
        /// of 2.5 s per session (SampleEvents' hang).
        static func releaseHealthEvents() -> [Event] {
            var events: [Event] = []
            for index in 0..<20 {
                var session = SampleEvents.make(.session, index: index)
                session.time = Date()
                session.user = "user-\(index)"
                if case .session(var payload) = session.payload {
                    payload.outcome = index < 4 ? .crashed : .exited
                    payload.foregroundMs = 60_000
                    session.payload = .session(payload)
                }
                events.append(session)
                var hang = SampleEvents.make(.hang, index: index)
                hang.time = Date()
                hang.user = "user-\(index)"
                events.append(hang)
            }
            return events
        }

        @Test("a release below the crash-free-users threshold after enough sessions, and one hanging too long, fire once each",
              arguments: StoreKind.allCases)
        func releaseRules(kind: StoreKind) throws {
            let server = try TestServer(kind) { $0.alertWorkers = false }
            let url = "http://127.0.0.1:9/unused"
            _ = try Self.createRule(server, ["name": "crash-free", "kind": "crash_free_users", "url": url, "threshold": 99, "minSessions": 10])
            _ = try Self.createRule(server, ["name": "too few", "kind": "crash_free_users", "url": url, "threshold": 99, "minSessions": 1000])
            _ = try Self.createRule(server, ["name": "hangs", "kind": "hang_rate", "url": url, "threshold": 1, "minSessions": 10])
            let events = Self.releaseHealthEvents()
            #expect(try server.postEvents(events).status == 200)
            _ = try server.app.context.processor.drain()
            let evaluator = AlertEvaluator(store: server.store)
            #expect(try evaluator.evaluate() == 2)
            #expect(try evaluator.evaluate() == 0)
            let alerts = try server.store.alerts(projectID: server.project.id)
            #expect(alerts.count == 2)
            // Release rules are checked at most every releaseInterval: with no cooldown, the
            // hang-rate rule fires again only once the interval has passed.
            _ = try Self.createRule(server, ["name": "hangs, no cooldown", "kind": "hang_rate", "url": url, "threshold": 1,
                                             "cooldownMinutes": 0])
            let clock = TestClock(wall: Date())
            let paced = AlertEvaluator(store: server.store, clock: clock, releaseInterval: 300)
            #expect(try paced.evaluate() == 1)
            clock.advance(byMilliseconds: 200_000)
            #expect(try paced.evaluate() == 0)
            clock.advance(byMilliseconds: 101_000)
            #expect(try paced.evaluate() == 1)
            #expect(alerts.allSatisfy { $0.subject == "release:3.2.0 (412)" })
            #expect(alerts.contains { $0.text.contains("crash-free users") })
            #expect(alerts.contains { $0.text.contains("s per foreground hour") })
        }

        @Test("rules through the API: created with a secret, listed, refused when malformed, deleted (pending alerts dropped)",
              arguments: StoreKind.allCases)
        func rulesThroughTheAPI(kind: StoreKind) throws {
            let server = try TestServer(kind) { $0.alertWorkers = false }
            let admin = ["Authorization": "Bearer \(TestServer.adminToken)", "Content-Type": "application/json"]
            let bad = try server.client.post("/api/v1/alerts/rules", Data("{\"name\":\"x\",\"kind\":\"issue_events\",\"url\":\"http://h/\"}".utf8),
                                             headers: admin)
            #expect(bad.status == 400)
            #expect(bad.text.contains("threshold"))
            #expect(try server.client.post("/api/v1/alerts/rules", Data("{}".utf8)).status == 401)
            let rule = try Self.createRule(server, ["name": "new", "kind": "new_issue", "url": "http://127.0.0.1:9/x"])
            #expect((rule["secret"] as? String)?.hasPrefix("whsec_") == true)
            let listed = try server.adminGet("/api/v1/alerts/rules")
            #expect((listed.json["rules"] as? [[String: Any]])?.count == 1)
            #expect(try server.postEvents([crashNow(1)]).status == 200)
            _ = try server.app.context.processor.drain()
            // Fired in the processing transaction; the evaluator's sweep for new issues finds it covered.
            #expect(try server.store.alerts(projectID: server.project.id).count == 1)
            #expect(try AlertEvaluator(store: server.store).evaluate() == 0)
            let id = try #require(rule["id"] as? Int)
            #expect(try server.client.send("DELETE", "/api/v1/alerts/rules/\(id)", headers: admin).status == 204)
            #expect(try server.client.send("DELETE", "/api/v1/alerts/rules/\(id)", headers: admin).status == 404)
            let alerts = try server.adminGet("/api/v1/alerts").json["alerts"] as? [[String: Any]]
            #expect(alerts?.map { $0["state"] as? String } == ["dropped"])
        }

        @Test("the dashboard's rule form needs the session's form token; with it the rule is added and deleted",
              arguments: [StoreKind.sqlite])
        func dashboardForms(kind: StoreKind) throws {
            let server = try TestServer(kind) { $0.alertWorkers = false }
            let session = server.app.context.authenticator.makeSession()
            let cookie = ["Cookie": "\(Authenticator.sessionCookie)=\(session)", "Content-Type": "application/x-www-form-urlencoded"]
            let page = try server.client.get("/alerts", headers: cookie)
            #expect(page.status == 200)
            let token = server.app.context.authenticator.csrfToken(forSession: session)
            #expect(page.text.contains("name=\"csrf\" value=\"\(token)\""))
            let form = "name=ops&kind=new_issue&url=http%3A%2F%2F127.0.0.1%3A9%2Fhook&cooldownMinutes=30"
            #expect(try server.client.post("/alerts/rules", Data(form.utf8), headers: cookie).status == 403)
            #expect(try server.client.post("/alerts/rules", Data((form + "&csrf=wrong").utf8), headers: cookie).status == 403)
            #expect(try server.client.post("/alerts/rules", Data((form + "&csrf=\(token)").utf8), headers: cookie).status == 303)
            let rules = try server.store.alertRules(projectID: server.project.id)
            #expect(rules.map(\.name) == ["ops"])
            #expect(rules.first?.cooldownSeconds == 1800)
            #expect(try server.client.get("/alerts", headers: cookie).text.contains("127.0.0.1:9/hook"))
            let id = try #require(rules.first?.id)
            #expect(try server.client.post("/alerts/rules/\(id)/delete", Data("csrf=nope".utf8), headers: cookie).status == 403)
            #expect(try server.client.post("/alerts/rules/\(id)/delete", Data("csrf=\(token)".utf8), headers: cookie).status == 303)
            #expect(try server.store.alertRules(projectID: server.project.id).isEmpty)
        }
    }
}
