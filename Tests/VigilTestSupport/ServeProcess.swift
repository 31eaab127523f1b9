import Foundation

/// A `vigil serve` process on a fresh SQLite database and a free loopback port, for tests that
/// drive the command-line tools against a real server. Stopped by ``stop()`` or deinit.
public final class ServeProcess: @unchecked Sendable {
    /// The admin token the server was started with.
    public static let adminToken = "va_test_admin_token"

    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL
    /// The port it listens on.
    public let port: UInt16
    private let handle: SpawnedProcess.Handle
    private let directory: TemporaryDirectory

    /// Starts the server (from the built `vigil`) and waits until `/healthz` answers.
    public init() throws {
        directory = try TemporaryDirectory(prefix: "serve")
        port = try LoopbackPort.free()
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
        let vigil = try BuildProducts.executable("vigil")
        handle = try SpawnedProcess.start(vigil.path, [
            "serve", "--db", "sqlite:" + directory.file("vigil.sqlite").path, "--port", String(port),
            "--admin-token", Self.adminToken, "--workers", "1", "--threads", "2",
            "--spool-dir", directory.file("spool").path])
        let client = HTTPTestClient(port: port)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? client.get("/healthz"))?.status == 200 { return }
            if handle.hasExited { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        handle.terminate(SIGKILL)
        throw TestSupportError("vigil serve on port \(port) did not come up: \(handle.wait(timeout: 5))")
    }

    /// What the server printed so far.
    public var standardOutput: String { handle.standardOutput }

    /// Stops the server and waits for it.
    public func stop() {
        guard !handle.hasExited else { return }
        handle.terminate()
        _ = handle.wait(timeout: 30)
    }

    deinit { stop() }
}
