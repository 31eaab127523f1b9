import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway ZooKeeper server (standalone) for integration tests of ClickHouse replication:
/// Debian's `zookeeper` package run with its own `zoo.cfg` in a temporary directory, on a free
/// loopback port; killed and deleted at the end. It can be killed and started again on its
/// data, to test an outage.
///
/// Java comes from `$VIGIL_JAVA` or `/usr/bin/java`, the server from Debian's
/// `/usr/share/java/zookeeper.jar` (its manifest names the libraries it needs).
public final class ZooKeeperTestServer: @unchecked Sendable {
    /// The client port (127.0.0.1 only).
    public let port: UInt16
    /// Its folder: configuration and data.
    public let directory: TemporaryDirectory
    private let java: String
    private let lock = NSLock()
    private var handle: SpawnedProcess.Handle?

    static let jar = "/usr/share/java/zookeeper.jar"

    /// Writes the configuration and starts the server; throws with its output when it does not
    /// answer `ruok` within 60 s.
    public init() throws {
        java = ProcessInfo.processInfo.environment["VIGIL_JAVA"] ?? "/usr/bin/java"
        guard FileManager.default.isExecutableFile(atPath: java), FileManager.default.fileExists(atPath: Self.jar) else {
            throw TestSupportError("ZooKeeper is not installed (\(java), \(Self.jar)): run scripts/bootstrap (package zookeeper)")
        }
        directory = try TemporaryDirectory(prefix: "zookeeper")
        port = try LoopbackPort.free()
        let config = """
            tickTime=2000
            initLimit=10
            syncLimit=5
            dataDir=\(directory.file("data").path)
            clientPort=\(port)
            clientPortAddress=127.0.0.1
            admin.enableServer=false
            4lw.commands.whitelist=ruok
            """
        try config.write(to: directory.file("zoo.cfg"), atomically: true, encoding: .utf8)
        do {
            try start()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Starts the server (again) and waits until it answers `ruok` with `imok`.
    public func start() throws {
        let handle = try SpawnedProcess.start(java, ["-Xmx256m", "-Dzookeeper.log.dir=" + directory.url.path,
                                                     "-cp", "/etc/zookeeper/conf:" + Self.jar,
                                                     "org.apache.zookeeper.server.quorum.QuorumPeerMain", directory.file("zoo.cfg").path],
                                              currentDirectory: directory.url.path)
        lock.withLock { self.handle = handle }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if isServing() { return }
            if handle.hasExited { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        handle.terminate(SIGKILL)
        throw TestSupportError("ZooKeeper did not come up on port \(port): \(handle.wait(timeout: 10))")
    }

    /// Kills the server at once (`SIGKILL`).
    public func kill() {
        let handle = lock.withLock { () -> SpawnedProcess.Handle? in
            defer { self.handle = nil }
            return self.handle
        }
        guard let handle else { return }
        handle.terminate(SIGKILL)
        _ = handle.wait(timeout: 30)
    }

    /// Kills the server and deletes the folder.
    public func stop() {
        kill()
        directory.remove()
    }

    /// Whether the server answers the `ruok` four-letter command with `imok`.
    private func isServing() -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let connected = LoopbackPort.connect(fd, to: port)
        guard connected == 0 else { return false }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Array("ruok".utf8).withUnsafeBytes({ send(fd, $0.baseAddress, 4, 0) }) == 4 else { return false }
        var answer = [UInt8](repeating: 0, count: 8)
        let count = answer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 8, 0) }
        return count >= 4 && String(decoding: answer[0..<4], as: UTF8.self) == "imok"
    }
}
