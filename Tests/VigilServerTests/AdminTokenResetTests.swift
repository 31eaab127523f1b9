import Foundation
import Testing
import VigilTestSupport
@testable import VigilServer

/// `vigil serve --reset-admin-token` as an operator uses it after a token leaked: real server
/// processes on one SQLite file, stopped and started again.
@Suite("resetting the admin token (real processes)")
struct AdminTokenResetTests {
    /// Starts `vigil serve` and waits until it answers `/healthz` and has printed its banner.
    static func startServer(database: String, port: UInt16, extra: [String] = []) throws -> SpawnedProcess.Handle {
        let vigil = try BuildProducts.executable("vigil")
        let handle = try SpawnedProcess.start(vigil.path, ["serve", "--db", database, "--port", String(port),
                                                           "--workers", "0", "--threads", "2"] + extra)
        let client = HTTPTestClient(port: port)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? client.get("/healthz"))?.status == 200, handle.standardOutput.contains("dashboard:") { return handle }
            if handle.hasExited { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        handle.terminate(SIGKILL)
        throw TestSupportError("vigil serve on port \(port) did not come up: \(handle.wait(timeout: 5))")
    }

    /// The token printed after `label` in a server's standard output.
    static func printedToken(_ output: String, after label: String) throws -> String {
        for line in output.split(separator: "\n") where line.hasPrefix(label) {
            if let token = line.split(separator: " ").last, token.hasPrefix("va_") { return String(token) }
        }
        throw TestSupportError("no \"\(label)\" line with a token in: \(output)")
    }

    static func stop(_ handle: SpawnedProcess.Handle) {
        handle.terminate()
        _ = handle.wait(timeout: 30)
    }

    @Test("a session made with the old token stops working once the token is reset and the server restarted")
    func resetEndsOldSessions() throws {
        let directory = try TemporaryDirectory(prefix: "reset-token")
        let database = "sqlite:" + directory.file("vigil.sqlite").path

        // First start: the server makes a token; log in with it.
        let firstPort = try LoopbackPort.free()
        let first = try Self.startServer(database: database, port: firstPort)
        let oldToken = try Self.printedToken(first.standardOutput, after: "admin token")
        let client = HTTPTestClient(port: firstPort)
        let login = try client.post("/login", Data("token=\(oldToken)&next=%2Fissues".utf8))
        #expect(login.status == 303, "\(login)")
        let cookie = try #require(login.headers["set-cookie"], "\(login)")
        let session = String(cookie.split(separator: ";")[0])
        #expect(try client.get("/issues", headers: ["Cookie": session]).status == 200)
        Self.stop(first)

        // A restart alone keeps the session (the secret is in the database).
        let secondPort = try LoopbackPort.free()
        let second = try Self.startServer(database: database, port: secondPort)
        #expect(try HTTPTestClient(port: secondPort).get("/issues", headers: ["Cookie": session]).status == 200)
        Self.stop(second)

        // Reset, which restarts the server: the old cookie and the old token are refused.
        let thirdPort = try LoopbackPort.free()
        let third = try Self.startServer(database: database, port: thirdPort, extra: ["--reset-admin-token"])
        defer { Self.stop(third) }
        let newToken = try Self.printedToken(third.standardOutput, after: "admin token (replaces the old one")
        #expect(newToken != oldToken)
        let after = HTTPTestClient(port: thirdPort)
        let page = try after.get("/issues", headers: ["Cookie": session])
        #expect(page.status == 303, "\(page)")
        #expect(page.headers["location"]?.hasPrefix("/login") == true, "\(page.headers)")
        let api = try after.get("/api/v1/issues", headers: ["Cookie": session])
        #expect(api.status == 401, "\(api)")
        #expect(try after.get("/api/v1/issues", headers: ["Authorization": "Bearer \(oldToken)"]).status == 401)

        // The new token logs in, and its session works.
        let relogin = try after.post("/login", Data("token=\(newToken)&next=%2Fissues".utf8))
        #expect(relogin.status == 303, "\(relogin)")
        let newSession = String(try #require(relogin.headers["set-cookie"]).split(separator: ";")[0])
        #expect(newSession != session)
        #expect(try after.get("/issues", headers: ["Cookie": newSession]).status == 200)
    }

    @Test("resetting the token replaces the session secret with a new one, in the same call")
    func resetRotatesSessionSecret() throws {
        let directory = try TemporaryDirectory(prefix: "reset-token")
        let store = try ServerStore.open(.sqlite(path: directory.file("vigil.sqlite").path), connections: 2)
        defer { store.database.close() }
        _ = try store.insertSettingIfAbsent("session_secret", "old-secret")
        _ = try store.insertSettingIfAbsent("admin_token_hash", "old-hash")
        let token = try ServerApplication.resetAdminToken(store: store)
        #expect(try store.setting("admin_token_hash") == SecretToken.hash(token))
        let secret = try #require(try store.setting("session_secret"))
        #expect(secret != "old-secret")
        #expect(secret.count >= 32)
    }
}
