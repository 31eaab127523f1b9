import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// The issue workflow's rules, without a database.
@Suite("issue state rules")
struct IssueStateRuleTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func resolved(_ resolution: IssueState.Resolution, in version: String? = nil, at: Date = now) -> IssueState {
        var state = IssueState()
        state.status = .resolved
        state.resolution = resolution
        state.resolvedIn = version
        state.resolvedAt = at
        return state
    }

    @Test("resolved in 1.0: events from 1.0 and older keep it resolved, a later version regresses it, numbers compared as numbers")
    func resolvedInVersion() {
        let state = Self.resolved(.version, in: "1.0")
        let later = Self.now.addingTimeInterval(60)
        #expect(state.afterEvents(eventCount: 5, versions: ["1.0": 0, "0.9": 0], now: later) == nil)
        let (next, kind) = try! #require(state.afterEvents(eventCount: 6, versions: ["1.0": 0, "1.1": 0], now: later))
        #expect(kind == .regressed(version: "1.1"))
        #expect(next.status == .regressed && next.regressedVersion == "1.1" && next.regressedAt == later)
        // 1.10 is later than 1.9; the highest later version names the regression.
        #expect(Self.resolved(.version, in: "1.9").afterEvents(eventCount: 1, versions: ["1.10": 0, "1.9.1": 0], now: later)?.1
            == .regressed(version: "1.10"))
        #expect(Self.resolved(.version, in: "1.10").afterEvents(eventCount: 1, versions: ["1.9": 0], now: later) == nil)
    }

    @Test("resolved in the next release behaves as resolved in the latest version seen at resolution")
    func resolvedInNextRelease() {
        let state = Self.resolved(.nextRelease, in: "2.0")
        #expect(state.afterEvents(eventCount: 3, versions: ["2.0": 0, "1.0": 0], now: Self.now) == nil)
        #expect(state.afterEvents(eventCount: 3, versions: ["2.0.1": 0], now: Self.now)?.1 == .regressed(version: "2.0.1"))
    }

    @Test("resolved plainly: an event that happened after the resolution regresses it, a late upload of an older one does not")
    func resolvedPlainly() {
        let state = Self.resolved(.plain)
        let before = ServerStore.millis(Self.now) - 1000, after = ServerStore.millis(Self.now) + 1000
        #expect(state.afterEvents(eventCount: 2, versions: ["1.0": before], now: Self.now.addingTimeInterval(5)) == nil)
        #expect(state.afterEvents(eventCount: 2, versions: ["1.0": after], now: Self.now.addingTimeInterval(5))?.1
            == .regressed(version: "1.0"))
    }

    @Test("ignored: until N events reopens at the count, until a date reopens after it and reads as open then, forever never")
    func ignored() {
        var state = IssueState()
        state.status = .ignored
        #expect(state.afterEvents(eventCount: 1_000_000, versions: ["1": 0], now: Self.now) == nil)
        state.ignoreUntilEvents = 15
        #expect(state.afterEvents(eventCount: 14, versions: ["1": 0], now: Self.now) == nil)
        #expect(state.afterEvents(eventCount: 15, versions: ["1": 0], now: Self.now)?.1 == .reopenedAfterIgnore)
        #expect(state.afterEvents(eventCount: 15, versions: ["1": 0], now: Self.now)?.0 == IssueState())
        var dated = IssueState()
        dated.status = .ignored
        dated.ignoreUntil = Self.now
        #expect(dated.effectiveStatus(at: Self.now.addingTimeInterval(-1)) == .ignored)
        #expect(dated.afterEvents(eventCount: 1, versions: ["1": 0], now: Self.now.addingTimeInterval(-1)) == nil)
        #expect(dated.effectiveStatus(at: Self.now) == .open)
        #expect(dated.afterEvents(eventCount: 1, versions: ["1": 0], now: Self.now)?.1 == .reopenedAfterIgnore)
    }
}

extension BothStores {
    /// Resolve, ignore, regress: through the API and processing, on both stores.
    @Suite("issue workflow")
    struct IssueWorkflowTests {
        /// A hang of the one fixed stack (so every such event is one issue) from `version` at `time`.
        /// Drains every processor at once, each on its own thread (as servers sharing one database
        /// do), and returns the errors they threw.
        static func drainAtOnce(_ processors: [EventProcessor]) -> [String] {
            let failures = Collected<String>()
            let group = DispatchGroup()
            for processor in processors {
                group.enter()
                DispatchQueue.global().async {
                    do { try processor.drain() } catch { failures.append("\(error)") }
                    group.leave()
                }
            }
            group.wait()
            return failures.items
        }

        static func hang(version: String, time: Date = Date().addingTimeInterval(-60)) -> Event {
            var event = ProcessingTestsFixture.hang(index: 0)
            event.id = UUID()
            event.session = UUID()
            event.time = time
            event.app.version = version
            return event
        }

        /// A processor collecting every transaction's transitions.
        static func processor(_ store: ServerStore, into collected: Collected<IssueTransition>, batchSize: Int = 250) -> EventProcessor {
            EventProcessor(store: store, symbols: SymbolTableCache(engine: TableSymbolication()), batchSize: batchSize,
                           transitionHandler: { transitions, _ in for transition in transitions { collected.append(transition) } })
        }

        static func post(_ server: TestServer, _ events: [Event]) throws {
            let answer = try server.postEvents(events)
            guard answer.status == 200, (answer.json["stored"] as? Int) == events.count else {
                throw TestSupportError("events refused: \(answer)")
            }
        }

        static func admin(_ server: TestServer, _ path: String, _ body: String = "") throws -> HTTPTestClient.Response {
            try server.client.post(path, Data(body.utf8), headers: ["Authorization": "Bearer \(TestServer.adminToken)",
                                                                   "Content-Type": "application/json"])
        }

        @Test("resolved in 1.0: an event from 1.0 keeps it resolved, one from 1.1 reopens it as regressed in 1.1, audited",
              arguments: StoreKind.allCases)
        func regressionAfterResolveInVersion(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let seen = Collected<IssueTransition>()
            let processor = Self.processor(server.store, into: seen)
            try Self.post(server, [Self.hang(version: "1.0")])
            try processor.drain()
            let issue = try #require(try server.store.issues(projectID: server.project.id).first)
            #expect(seen.items.map(\.kind) == [.newIssue])
            #expect(seen.items.first?.issueID == issue.id)

            let resolved = try Self.admin(server, "/api/v1/issues/\(issue.id)/resolve", #"{"version": "1.0"}"#)
            #expect(resolved.status == 200)
            #expect((resolved.json["state"] as? [String: Any])?["status"] as? String == "resolved")
            try Self.post(server, [Self.hang(version: "1.0"), Self.hang(version: "0.9")])
            try processor.drain()
            var state = try #require(try server.store.issue(projectID: server.project.id, id: issue.id)).summary
            #expect(state.state.status == .resolved && state.events == 3)
            #expect(seen.items.count == 1)
            // Listed as resolved, not as unresolved.
            #expect(try server.store.issues(projectID: server.project.id, state: "unresolved").isEmpty)
            #expect(try server.store.issues(projectID: server.project.id, state: "resolved").map(\.id) == [issue.id])

            try Self.post(server, [Self.hang(version: "1.1")])
            try processor.drain()
            state = try #require(try server.store.issue(projectID: server.project.id, id: issue.id)).summary
            #expect(state.state.status == .regressed)
            #expect(state.state.regressedVersion == "1.1")
            #expect(state.events == 4)
            #expect(seen.items.map(\.kind) == [.newIssue, .regressed(version: "1.1")])
            let listed = try server.adminGet("/api/v1/issues?state=regressed")
            #expect(listed.text.contains("\"regressedVersion\":\"1.1\""))
            // More events from later versions: it is regressed already, nothing new happens.
            try Self.post(server, [Self.hang(version: "1.2")])
            try processor.drain()
            #expect(seen.items.count == 2)
            let audit = try server.store.issueAudit(projectID: server.project.id, issueID: issue.id)
            #expect(audit.map(\.action) == ["regressed", "resolved"])
            #expect(audit.map(\.actor) == ["vigil", "admin token"])
            #expect(audit.first?.detail?.hasPrefix("in 1.1") == true)
            let auditAnswer = try server.adminGet("/api/v1/issues/\(issue.id)/audit")
            #expect(auditAnswer.status == 200 && auditAnswer.text.contains("\"actor\":\"admin token\""))
        }

        @Test("resolved in the next release: the latest version seen then is the line; processed at ingest too",
              arguments: StoreKind.allCases)
        func resolveInNextReleaseAtIngest(kind: StoreKind) throws {
            // Workers on: events are processed in the ingest transaction (insertProcessed).
            let server = try TestServer(kind, configure: { $0.workers = 1 })
            try Self.post(server, [Self.hang(version: "2.0"), Self.hang(version: "1.0")])
            let issue = try #require(try server.store.issues(projectID: server.project.id).first)
            let answer = try Self.admin(server, "/api/v1/issues/\(issue.id)/resolve", #"{"in": "next-release"}"#)
            #expect(answer.status == 200)
            #expect((answer.json["state"] as? [String: Any])?["resolvedIn"] as? String == "2.0")
            try Self.post(server, [Self.hang(version: "2.0")])
            #expect(try server.store.issue(projectID: server.project.id, id: issue.id)?.summary.state.status == .resolved)
            try Self.post(server, [Self.hang(version: "2.1")])
            let state = try #require(try server.store.issue(projectID: server.project.id, id: issue.id)).summary.state
            #expect(state.status == .regressed && state.regressedVersion == "2.1")
            // Bad requests say why.
            #expect(try Self.admin(server, "/api/v1/issues/\(issue.id)/resolve", #"{"in": "someday"}"#).status == 400)
            #expect(try Self.admin(server, "/api/v1/issues/\(issue.id)/ignore", #"{"events": 0}"#).status == 400)
            #expect(try Self.admin(server, "/api/v1/issues/\(issue.id)/ignore", #"{"until": "2001-01-01"}"#).status == 400)
            #expect(try Self.admin(server, "/api/v1/issues/999999/reopen").status == 404)
            // The session cookie alone does not change state through the API.
            let session = server.app.context.authenticator.makeSession()
            let cookieOnly = try server.client.post("/api/v1/issues/\(issue.id)/reopen", Data(),
                                                    headers: ["Cookie": "\(Authenticator.sessionCookie)=\(session)"])
            #expect(cookieOnly.status == 401)
            #expect(try Self.admin(server, "/api/v1/issues/\(issue.id)/reopen").status == 200)
            #expect(try server.store.issue(projectID: server.project.id, id: issue.id)?.summary.state == IssueState())
        }

        @Test("ignored until 10 more events: still ignored after 9, open again at exactly the 10th", arguments: StoreKind.allCases)
        func ignoreUntilTenMoreEvents(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let seen = Collected<IssueTransition>()
            let processor = Self.processor(server.store, into: seen)
            try Self.post(server, [Self.hang(version: "1.0"), Self.hang(version: "1.0")])
            try processor.drain()
            let issue = try #require(try server.store.issues(projectID: server.project.id).first)
            let answer = try Self.admin(server, "/api/v1/issues/\(issue.id)/ignore", #"{"events": 10}"#)
            #expect(answer.status == 200)
            #expect(answer.json["summary"] as? String == "ignored until 10 more events")
            for count in 1...10 {
                try Self.post(server, [Self.hang(version: "1.0")])
                try processor.drain()
                let state = try #require(try server.store.issue(projectID: server.project.id, id: issue.id)).summary.state
                if count < 10 {
                    #expect(state.status == .ignored, "after \(count) more events")
                    #expect(!seen.items.contains { $0.kind == .reopenedAfterIgnore })
                } else {
                    #expect(state.status == .open)
                    #expect(seen.items.map(\.kind) == [.newIssue, .reopenedAfterIgnore])
                }
            }
            #expect(try server.store.issueAudit(projectID: server.project.id, issueID: issue.id).map(\.action) == ["reopened", "ignored"])
        }

        @Test("two servers on one PostgreSQL database processing at once report each transition exactly once")
        func twoServersAgree() throws {
            let directory = try TemporaryDirectory(prefix: "workflow-two")
            let location = try StoreKind.postgres.freshLocation(in: directory)
            let first = try ServerStore.open(location, connections: 4)
            let second = try ServerStore.open(location, connections: 4)
            defer { first.database.close(); second.database.close() }
            let (project, _) = try first.ensureProject(name: "default", now: Date())
            let seen = Collected<IssueTransition>()
            let processors = [Self.processor(first, into: seen, batchSize: 5), Self.processor(second, into: seen, batchSize: 5)]
            // Stored waiting (no processor at ingest), for both servers' workers to claim.
            let ingestor = EventIngestor(store: first, clock: SystemClock(), decoder: .tape, processor: nil)
            func store(_ events: [Event]) throws {
                let outcome = try ingestor.ingest(try EventJSON.makeEncoder().encode(events), projectID: project.id)
                #expect(outcome.stored == events.count)
            }
            func processTogether() throws {
                let failures = Self.drainAtOnce(processors)
                #expect(failures.isEmpty)
            }
            // A new issue, its first events spread over both servers' batches.
            try store((0..<60).map { _ in Self.hang(version: "1.0") })
            try processTogether()
            #expect(seen.items.map(\.kind) == [.newIssue])
            let issue = try #require(try first.issues(projectID: project.id).first)
            #expect(issue.events == 60)
            // Resolved in 1.0, then 80 events from 1.0 and later versions processed by both at once.
            _ = try first.changeIssueState(projectID: project.id, issueID: issue.id, action: .resolveInVersion("1.0"),
                                           actor: "test", now: Date())
            try store((0..<80).map { Self.hang(version: ["1.0", "1.1", "1.2", "1.0"][$0 % 4]) })
            try processTogether()
            let regressions = seen.items.filter { if case .regressed = $0.kind { return true } else { return false } }
            #expect(regressions.count == 1)
            let state = try #require(try second.issue(projectID: project.id, id: issue.id)).summary
            #expect(state.state.status == .regressed)
            #expect(state.events == 140)
            // Ignored until 25 more: 70 events processed by both reopen it once.
            _ = try second.changeIssueState(projectID: project.id, issueID: issue.id, action: .ignoreUntilEvents(25),
                                            actor: "test", now: Date())
            try store((0..<70).map { _ in Self.hang(version: "1.2") })
            try processTogether()
            #expect(seen.items.filter { $0.kind == .reopenedAfterIgnore }.count == 1)
            #expect(try first.issue(projectID: project.id, id: issue.id)?.summary.state.status == .open)
            let audit = try first.issueAudit(projectID: project.id, issueID: issue.id).map(\.action)
            #expect(audit == ["reopened", "ignored", "regressed", "resolved"])
        }

        @Test("the dashboard's state forms need the session's CSRF token; with it the change is made and audited as the session",
              arguments: StoreKind.allCases)
        func dashboardFormsAreCSRFSafe(kind: StoreKind) throws {
            let server = try TestServer(kind)
            try Self.post(server, [Self.hang(version: "1.0")])
            try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
            let issue = try #require(try server.store.issues(projectID: server.project.id).first)
            let session = server.app.context.authenticator.makeSession()
            let cookie = ["Cookie": "\(Authenticator.sessionCookie)=\(session)"]
            let page = try server.client.get("/issues/\(issue.id)", headers: cookie)
            #expect(page.status == 200)
            let csrf = server.app.context.authenticator.csrfToken(forSession: session)
            #expect(page.text.contains("name=\"csrf\" value=\"\(csrf)\""))
            #expect(page.text.contains("Resolve in next release"))
            let form = ["Content-Type": "application/x-www-form-urlencoded"]
            // No token, a wrong token, another site's origin: refused, nothing changed.
            for (body, extra) in [("action=resolve", [:]), ("action=resolve&csrf=0000", [:]),
                                  ("action=resolve&csrf=\(csrf)", ["Origin": "http://evil.example"])] as [(String, [String: String])] {
                let refused = try server.client.post("/issues/\(issue.id)/state", Data(body.utf8),
                                                     headers: cookie.merging(form) { $1 }.merging(extra) { $1 })
                #expect(refused.status == 403, "\(body) \(extra)")
            }
            #expect(try server.store.issue(projectID: server.project.id, id: issue.id)?.summary.state.status == .open)
            let done = try server.client.post("/issues/\(issue.id)/state", Data("action=resolve&version=1.0&csrf=\(csrf)".utf8),
                                              headers: cookie.merging(form) { $1 })
            #expect(done.status == 303)
            #expect(done.headers["location"] == "/issues/\(issue.id)")
            #expect(try server.store.issue(projectID: server.project.id, id: issue.id)?.summary.state.resolvedIn == "1.0")
            let audit = try server.store.issueAudit(projectID: server.project.id, issueID: issue.id)
            #expect(audit.first?.actor == "dashboard session " + String(session.split(separator: ".")[1].prefix(8)))
            let after = try server.client.get("/issues/\(issue.id)", headers: cookie).text
            #expect(after.contains("resolved in 1.0"))
            #expect(after.contains("<h2>Audit</h2>"))
            // The list's state filter.
            #expect(try server.client.get("/issues", headers: cookie).text.contains("No crashes or hangs in this state, time range and filter"))
            #expect(try server.client.get("/issues?state=resolved", headers: cookie).text.contains("/issues/\(issue.id)"))
        }
    }
}
