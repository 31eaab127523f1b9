import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// The outbox survives the process: a real `vigil serve` killed (SIGKILL) between retries
    /// and started again on the same database finishes the delivery.
    @Suite("alerts: a server killed mid-retry")
    struct AlertRestartTests {
        static func startServer(database: String, port: UInt16) throws -> SpawnedProcess.Handle {
            let vigil = try BuildProducts.executable("vigil")
            let handle = try SpawnedProcess.start(vigil.path, [
                "serve", "--db", database, "--port", String(port), "--admin-token", TestServer.adminToken,
                "--workers", "1", "--connections", "4", "--threads", "2",
                "--alert-interval", "0.2", "--alert-timeout", "2", "--alert-retry-base", "1", "--alert-retry-cap", "4"])
            let client = HTTPTestClient(port: port)
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if (try? client.get("/healthz"))?.status == 200 { return handle }
                if handle.hasExited { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            handle.terminate(SIGKILL)
            throw TestSupportError("vigil serve on port \(port) did not come up: \(handle.wait(timeout: 5))")
        }

        @Test("killed after the second failed delivery and restarted, the server delivers the alert: 3 failures + 1 success, one id",
              arguments: StoreKind.allCases)
        func restartMidRetry(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "alert-restart")
            let database: String
            switch try kind.freshLocation(in: directory) {
            case .sqlite(let path): database = "sqlite:" + path
            case .postgres(let url): database = url
            }
            let receiver = try AlertReceiver(failures: 3)
            defer { receiver.stop() }
            let port = try LoopbackPort.free()
            var server = try Self.startServer(database: database, port: port)
            defer { if !server.hasExited { server.terminate(SIGKILL); _ = server.wait(timeout: 10) } }
            let output = server.standardOutput
            let key = try #require(output.split(separator: "\n").first { $0.contains("ingest key") }?
                .split(separator: " ").last.map(String.init), "no ingest key in: \(output)")
            let client = HTTPTestClient(port: port)
            let admin = ["Authorization": "Bearer \(TestServer.adminToken)", "Content-Type": "application/json"]
            let created = try client.post("/api/v1/alerts/rules", try JSONSerialization.data(withJSONObject: [
                "name": "crashes", "kind": "new_issue", "url": receiver.url]), headers: admin)
            #expect(created.status == 201, "\(created)")
            let secret = try #require(created.json["secret"] as? String)
            let events = try EventJSON.makeEncoder().encode([crashNow(1)])
            #expect(try client.post("/api/v1/events", events, headers: ["Authorization": "Bearer \(key)",
                                                                         "Content-Type": "application/json"]).status == 200)
            // Attempts 1 and 2 fail (1 s apart); the third would be due 2 s after the second.
            #expect(receiver.waitFor({ $0.answered.count >= 2 }, seconds: 60), "deliveries: \(receiver.answered)")
            Thread.sleep(forTimeInterval: 0.3)
            server.terminate(SIGKILL)
            _ = server.wait(timeout: 30)
            let whileDown = receiver.answered.count
            #expect(whileDown == 2)
            Thread.sleep(forTimeInterval: 3)
            #expect(receiver.answered.count == whileDown, "nobody delivers while the server is down")
            server = try Self.startServer(database: database, port: port)
            #expect(receiver.waitFor({ $0.answered.count >= 4 }, seconds: 90), "deliveries: \(receiver.answered)")
            Thread.sleep(forTimeInterval: 1.5)
            #expect(receiver.answered == [500, 500, 500, 200])
            let ids = Set(receiver.requests.compactMap { $0.headers["vigil-alert-id"] })
            #expect(ids.count == 1)
            #expect(receiver.acceptedIDs == ids)
            for request in receiver.requests {
                #expect(try DeliveryCheck.signatureVerifies(request, secret: secret))
                #expect(DeliveryCheck.bodyID(request) == ids.first)
            }
            let alerts = try #require(try client.get("/api/v1/alerts", headers: admin).json["alerts"] as? [[String: Any]])
            #expect(alerts.count == 1)
            #expect(alerts.first?["state"] as? String == "delivered")
            #expect(alerts.first?["attempts"] as? Int == 4)
            let log = try #require(try client.get("/api/v1/alerts/deliveries", headers: admin).json["deliveries"] as? [[String: Any]])
            #expect(log.compactMap { $0["status"] as? Int } == [200, 500, 500, 500])
            server.terminate()
            _ = server.wait(timeout: 30)
        }
    }
}
