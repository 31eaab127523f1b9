import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL server for integration tests: `initdb` into a temporary directory,
/// `pg_ctl start` on a free loopback port, `pg_ctl stop` at the end.
///
/// PostgreSQL refuses to run as root, and CI runs as root: then every PostgreSQL program runs
/// as the `postgres` system user (through `runuser`), in a directory handed to that user.
/// Durability is switched off (`fsync=off`) because the data is thrown away.
///
/// Binaries come from `$VIGIL_PG_BIN` or `/usr/lib/postgresql/15/bin`.
public final class PostgresServer: @unchecked Sendable {
    /// The port it listens on (127.0.0.1 only).
    public let port: UInt16
    /// The directory holding the cluster, the socket and the log.
    public let directory: TemporaryDirectory
    private let bin: URL
    private let asPostgresUser: Bool
    private let lock = NSLock()
    private var stopped = false
    private var databases = 0

    /// The server's log file.
    public var logFile: URL { directory.file("postgres.log") }

    /// Creates a cluster and starts the server; throws with the log when it cannot.
    public init() throws {
        let binPath = ProcessInfo.processInfo.environment["VIGIL_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"
        bin = URL(fileURLWithPath: binPath, isDirectory: true)
        guard FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) else {
            throw TestSupportError("PostgreSQL is not installed at \(binPath): run scripts/bootstrap (package postgresql)")
        }
        asPostgresUser = getuid() == 0
        directory = try TemporaryDirectory(prefix: "pg")
        if asPostgresUser {
            guard let user = getpwnam("postgres") else {
                throw TestSupportError("running as root, but there is no `postgres` user to run PostgreSQL as")
            }
            guard chown(directory.url.path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw TestSupportError("cannot hand \(directory.url.path) to the postgres user: errno \(errno)")
            }
        }
        let data = directory.file("data").path
        let log = directory.file("postgres.log")
        let bin = self.bin
        func tool(_ name: String) -> URL { bin.appendingPathComponent(name) }
        let initdb = try Self.run(tool("initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                                                  "--no-sync", "--no-instructions"], asPostgres: asPostgresUser)
        guard initdb.exitStatus == 0 else { throw TestSupportError("initdb failed: \(initdb)") }
        var lastFailure = ""
        for _ in 0..<3 {
            let candidate = try LoopbackPort.free()
            let options = "-p \(candidate) -k \(directory.url.path) -c listen_addresses=127.0.0.1 -c fsync=off "
                + "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=64MB"
            let start = try Self.run(tool("pg_ctl"), ["-D", data, "-l", log.path, "-w", "-t", "60", "-o", options, "start"],
                                     asPostgres: asPostgresUser)
            if start.exitStatus == 0 {
                port = candidate
                return
            }
            lastFailure = "\(start)\n--- log\n" + ((try? String(contentsOf: log, encoding: .utf8)) ?? "")
        }
        throw TestSupportError("pg_ctl start failed three times: \(lastFailure)")
    }

    deinit { stop() }

    /// A URL for database `name` as the `postgres` superuser.
    public func url(database: String = "postgres") -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)"
    }

    /// Creates a new, empty database with a unique name and returns its URL.
    public func createDatabase(prefix: String = "vigil") throws -> String {
        let name: String = lock.withLock {
            databases += 1
            return "\(prefix)_\(getpid())_\(databases)"
        }
        let outcome = try Self.run(tool("createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name],
                                   asPostgres: false)
        guard outcome.exitStatus == 0 else { throw TestSupportError("createdb \(name) failed: \(outcome)") }
        return url(database: name)
    }

    /// Stops the server (immediate shutdown; the data is discarded with the directory).
    public func stop() {
        let shouldStop: Bool = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard shouldStop else { return }
        _ = try? Self.run(tool("pg_ctl"), ["-D", directory.file("data").path, "-m", "immediate", "-w", "stop"],
                          asPostgres: asPostgresUser)
        directory.remove()
    }

    private func tool(_ name: String) -> URL { bin.appendingPathComponent(name) }

    /// Runs a PostgreSQL tool (as the `postgres` user when `asPostgres`).
    private static func run(_ executable: URL, _ arguments: [String], asPostgres: Bool) throws -> SpawnedProcess.Outcome {
        if asPostgres {
            return try SpawnedProcess.run("/usr/sbin/runuser", ["-u", "postgres", "--", executable.path] + arguments, timeout: 120)
        }
        return try SpawnedProcess.run(executable.path, arguments, timeout: 120)
    }
}
