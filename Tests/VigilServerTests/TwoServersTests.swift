import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// Two `vigil serve` processes on one PostgreSQL database.
    @Suite("two servers on one PostgreSQL database")
    struct TwoServersTests {
        /// Starts `vigil serve` on `database` and waits until it answers `/healthz`.
        static func startServer(database: String, port: UInt16) throws -> SpawnedProcess.Handle {
            let vigil = try BuildProducts.executable("vigil")
            let handle = try SpawnedProcess.start(vigil.path, [
                "serve", "--db", database, "--port", String(port), "--admin-token", TestServer.adminToken,
                "--workers", "2", "--connections", "6", "--threads", "4", "--rate-limit", "0"])
            let client = HTTPTestClient(port: port)
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if (try? client.get("/healthz"))?.status == 200 { return handle }
                Thread.sleep(forTimeInterval: 0.1)
            }
            handle.terminate(SIGKILL)
            throw TestSupportError("vigil serve on port \(port) did not come up: \(handle.wait(timeout: 5))")
        }

        static func metric(_ name: String, port: UInt16) throws -> Double {
            let text = try HTTPTestClient(port: port).get("/metrics").text
            for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
                return Double(line.split(separator: " ").last ?? "") ?? -1
            }
            return -1
        }

        @Test("concurrent ingest through both stores every event once, and each is processed once")
        func concurrentIngestAndProcessing() throws {
            let directory = try TemporaryDirectory(prefix: "two-servers")
            guard case .postgres(let url) = try StoreKind.postgres.freshLocation(in: directory) else { return }
            let ports = [try LoopbackPort.free(), try LoopbackPort.free()]
            // Both start on an empty database at once: migration and the default project race.
            let started = DispatchGroup()
            let startedServers = Collected<SpawnedProcess.Handle>()
            let failed = Collected<String>()
            for port in ports {
                started.enter()
                DispatchQueue.global().async {
                    do {
                        let handle = try Self.startServer(database: url, port: port)
                        startedServers.append(handle)
                    } catch {
                        failed.append("\(error)")
                    }
                    started.leave()
                }
            }
            started.wait()
            let servers = startedServers.items
            let failures = failed.items
            defer {
                for server in servers {
                    server.terminate()
                    server.wait(timeout: 30)
                }
            }
            #expect(failures.isEmpty, "\(failures)")
            guard failures.isEmpty else { return }
            let banners = servers.map(\.standardOutput).joined()
            #expect(banners.components(separatedBy: "ingest key").count == 2, "exactly one server created the default project")

            let store = try ServerStore.open(.postgres(url: url), connections: 2)
            defer { store.database.close() }
            let (project, key) = try store.createProject(name: "two")
            let sessions = (0..<7).map { _ in UUID() }
            let events: [Event] = (0..<1600).map { index in
                if index % 8 == 0 {
                    var hang = ProcessingTestsFixture.hang(index: index)
                    hang.id = UUID()
                    hang.session = sessions[index % sessions.count]
                    return hang
                }
                var event = SampleEvents.make([.network, .frames, .launch, .log][index % 4], index: index)
                event.id = UUID()
                return event
            }
            let batches = stride(from: 0, to: events.count, by: 50).map { Array(events[$0..<min($0 + 50, events.count)]) }
            let bodies = try batches.map { try EventJSON.makeEncoder().encode($0) }
            // Each batch goes to both servers, in opposite orders, from four clients.
            let errors = Counter()
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                let port = ports[worker % 2]
                let client = HTTPTestClient(port: port)
                let order = worker % 2 == 0 ? Array(bodies.indices) : Array(bodies.indices.reversed())
                for index in order where index % 2 == worker / 2 {
                    let answer = try? client.post("/api/v1/events", bodies[index], headers: [
                        "Authorization": "Bearer \(key)", "Content-Type": "application/json"])
                    if answer?.status != 200 || (answer?.json["accepted"] as? [String])?.count != batches[index].count { errors.add() }
                }
            }
            #expect(errors.value == 0)
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                let counts = try store.eventCounts(projectID: project.id)
                if counts.pending + counts.reprocess == 0 && counts.processed == events.count { break }
                Thread.sleep(forTimeInterval: 0.2)
            }
            let counts = try store.eventCounts(projectID: project.id)
            #expect(counts.processed == events.count && counts.pending == 0, "\(counts)")
            // The kept counts, written by both servers' transactions, agree with counting the table.
            let scanned = try store.scannedEventCounts(projectID: project.id)
            #expect(scanned == counts, "kept \(counts), scanned \(scanned)")
            for port in ports { #expect(Int(try Self.metric("vigil_events_stored", port: port)) == events.count) }
            // Stored once: accepted twice, stored once.
            let stored = try ports.reduce(0.0) { $0 + (try Self.metric("vigil_events_stored_total", port: $1)) }
            let duplicates = try ports.reduce(0.0) { $0 + (try Self.metric("vigil_events_duplicate_total", port: $1)) }
            #expect(Int(stored) == events.count)
            #expect(Int(duplicates) == events.count)
            // Processed once: the servers' counts add up to the events, and nothing was counted twice.
            let processed = try ports.map { try Self.metric("vigil_events_processed_total", port: $0) }
            #expect(Int(processed.reduce(0, +)) == events.count, "\(processed)")
            let rolled = try store.rollupSums(projectID: project.id, metrics: ["events"]).reduce(0) { $0 + $1.count }
            #expect(rolled == Int64(events.count))
            let issues = try store.issues(projectID: project.id)
            #expect(issues.count == 1)
            #expect(issues.first?.events == 200)
            #expect(issues.first?.users == Int64(sessions.count))

            // The issue workflow through both servers: resolved in the next release, then hangs
            // from a later version posted to both at once regress it once, audited once.
            let issue = try #require(issues.first)
            let admin = ["Authorization": "Bearer \(TestServer.adminToken)", "Content-Type": "application/json"]
            let resolved = try HTTPTestClient(port: ports[1]).post("/api/v1/issues/\(issue.id)/resolve?project=two",
                                                                   Data(#"{"in": "next-release"}"#.utf8), headers: admin)
            #expect(resolved.status == 200, "\(resolved)")
            let later = try (0..<8).map { _ in
                try EventJSON.makeEncoder().encode((0..<10).map { _ -> Event in
                    var hang = ProcessingTestsFixture.hang(index: 0)
                    hang.id = UUID()
                    hang.app.version = "99.0"
                    return hang
                })
            }
            let refused = Counter()
            DispatchQueue.concurrentPerform(iterations: later.count) { index in
                let answer = try? HTTPTestClient(port: ports[index % 2]).post("/api/v1/events", later[index], headers: [
                    "Authorization": "Bearer \(key)", "Content-Type": "application/json"])
                if answer?.status != 200 { refused.add() }
            }
            #expect(refused.value == 0)
            let regressedBy = Date().addingTimeInterval(60)
            while try store.issue(projectID: project.id, id: issue.id)?.summary.events != 280, Date() < regressedBy {
                Thread.sleep(forTimeInterval: 0.1)
            }
            let after = try #require(try store.issue(projectID: project.id, id: issue.id)).summary
            #expect(after.events == 280)
            #expect(after.state.status == .regressed && after.state.regressedVersion == "99.0", "\(after.state)")
            let audit = try store.issueAudit(projectID: project.id, issueID: issue.id)
            #expect(audit.map(\.action) == ["regressed", "resolved"], "\(audit)")
        }
    }
}
