import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Throwaway ClickHouse servers for integration tests: one `clickhouse-server` per shard (or
/// per replica of each shard) on free loopback ports, each with a configuration written into a
/// temporary directory whose `remote_servers` names every shard as cluster `vigil`; killed and
/// deleted at the end. A node can be killed (`SIGKILL`) and started again on its data, to test
/// outages. With replicas, every node knows the ``ZooKeeperTestServer`` and its own `{shard}`
/// and `{replica}` macros, and the replicas fetch parts from each other over their interserver
/// ports.
///
/// The binary comes from `$VIGIL_CLICKHOUSE_SERVER` or `/usr/sbin/clickhouse-server` (Debian's
/// `clickhouse-server` package, 18.16).
public final class ClickHouseTestCluster: @unchecked Sendable {
    /// One server: a shard's, or one replica of a shard.
    public struct Shard: Sendable {
        /// Its HTTP port.
        public var httpPort: UInt16
        /// Its native TCP port (what the `Distributed` table uses).
        public var tcpPort: UInt16
        /// Its interserver HTTP port (where other replicas fetch parts).
        public var interserverPort: UInt16
        /// Its folder: configuration, data and logs.
        public var folder: URL
    }

    /// The cluster's name in `remote_servers`.
    public static let clusterName = "vigil"
    /// Every server, shard by shard and replica by replica within a shard.
    public let shards: [Shard]
    /// How many replicas each shard has.
    public let replicas: Int
    /// The ZooKeeper the replicas share, if they are replicated.
    public let zooKeeper: ZooKeeperTestServer?
    /// The folder holding every shard's.
    public let directory: TemporaryDirectory
    private let binary: String
    private let lock = NSLock()
    private var handles: [SpawnedProcess.Handle?]

    /// Writes the configurations and starts `shardCount` × `replicas` servers; throws with a
    /// server's log when one does not answer within 60 s. More than one replica needs
    /// `zooKeeper`.
    public init(shards shardCount: Int = 2, replicas: Int = 1, zooKeeper: ZooKeeperTestServer? = nil) throws {
        guard replicas == 1 || zooKeeper != nil else { throw TestSupportError("replicas need a ZooKeeper") }
        self.replicas = replicas
        self.zooKeeper = zooKeeper
        binary = ProcessInfo.processInfo.environment["VIGIL_CLICKHOUSE_SERVER"] ?? "/usr/sbin/clickhouse-server"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw TestSupportError("clickhouse-server is not installed at \(binary): run scripts/bootstrap (package clickhouse-server)")
        }
        directory = try TemporaryDirectory(prefix: "clickhouse")
        var shards: [Shard] = []
        var taken = Set<UInt16>()
        for index in 0..<shardCount * replicas {
            var ports: [UInt16] = []
            while ports.count < 3 {
                let port = try LoopbackPort.free()
                if taken.insert(port).inserted { ports.append(port) }
            }
            let folder = directory.file(replicas == 1 ? "shard\(index + 1)" : "shard\(index / replicas + 1)-replica\(index % replicas + 1)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            shards.append(Shard(httpPort: ports[0], tcpPort: ports[1], interserverPort: ports[2], folder: folder))
        }
        self.shards = shards
        handles = Array(repeating: nil, count: shards.count)
        for index in shards.indices { try writeConfiguration(index) }
        do {
            for index in shards.indices { try start(node: index) }
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// `clickhouse://127.0.0.1:PORT/DATABASE?cluster=vigil&nodes=…`: the first shard (its
    /// first replica) as the entry node, every server's HTTP address in `nodes` (a shard's
    /// replicas joined by `|`), and `replicated=1` with replicas.
    public func url(database: String) -> String {
        let nodes = stride(from: 0, to: shards.count, by: replicas).map { first in
            shards[first..<first + replicas].map { "127.0.0.1:\($0.httpPort)" }.joined(separator: "|")
        }
        return "clickhouse://127.0.0.1:\(shards[0].httpPort)/\(database)?cluster=\(Self.clusterName)&nodes="
            + nodes.joined(separator: ",") + (zooKeeper == nil ? "" : "&replicated=1")
    }

    /// The index in ``shards`` of `replica` (0-based) of `shard` (0-based).
    public func node(shard: Int, replica: Int) -> Int { shard * replicas + replica }

    /// Starts server `index` of ``shards`` (again) and waits until it answers `/ping`.
    public func start(node index: Int) throws {
        let shard = shards[index]
        let handle = try SpawnedProcess.start(binary, ["--config-file=" + shard.folder.appendingPathComponent("config.xml").path],
                                              currentDirectory: shard.folder.path)
        lock.withLock { handles[index] = handle }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? HTTPTestClient(port: shard.httpPort).get("/ping"))?.status == 200 { return }
            if handle.hasExited { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        handle.terminate(SIGKILL)
        let log = (try? String(contentsOf: shard.folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        throw TestSupportError("clickhouse-server \(shard.folder.lastPathComponent) did not come up: \(handle.wait(timeout: 10))\n--- error.log\n\(log.suffix(3000))")
    }

    /// Starts shard `index` (its first replica) again.
    public func start(shard index: Int) throws { try start(node: node(shard: index, replica: 0)) }

    /// Kills shard `index` (its first replica) at once (`SIGKILL`).
    public func kill(shard index: Int) { kill(node: node(shard: index, replica: 0)) }

    /// Kills server `index` of ``shards`` at once (`SIGKILL`), as a crash or a lost machine would.
    public func kill(node index: Int) {
        let handle = lock.withLock { () -> SpawnedProcess.Handle? in
            defer { handles[index] = nil }
            return handles[index]
        }
        guard let handle else { return }
        handle.terminate(SIGKILL)
        _ = handle.wait(timeout: 30)
    }

    /// Runs `sql` on shard `index` (its first replica) over HTTP and returns the answer's text
    /// (`TabSeparated`).
    public func query(shard index: Int, _ sql: String) throws -> String {
        try query(node: node(shard: index, replica: 0), sql)
    }

    /// Runs `sql` on server `index` of ``shards`` over HTTP and returns the answer's text.
    public func query(node index: Int, _ sql: String) throws -> String {
        let answer = try HTTPTestClient(port: shards[index].httpPort).post("/", Data(sql.utf8))
        guard answer.status == 200 else { throw TestSupportError("ClickHouse refused \(sql): \(answer.text)") }
        return answer.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Kills every shard and deletes the folder.
    public func stop() {
        for index in shards.indices { kill(node: index) }
        directory.remove()
    }

    private func writeConfiguration(_ index: Int) throws {
        let shard = shards[index]
        let folder = shard.folder.path
        let clusterShards = stride(from: 0, to: shards.count, by: replicas).map { first in
            "<shard><internal_replication>\(replicas > 1)</internal_replication>"
                + shards[first..<first + replicas].map { "<replica><host>127.0.0.1</host><port>\($0.tcpPort)</port></replica>" }.joined()
                + "</shard>"
        }.joined(separator: "\n      ")
        let replication = zooKeeper.map { zooKeeper in
            """
            <zookeeper><node><host>127.0.0.1</host><port>\(zooKeeper.port)</port></node><session_timeout_ms>10000</session_timeout_ms></zookeeper>
              <macros><shard>\(index / replicas + 1)</shard><replica>replica\(index % replicas + 1)</replica></macros>
              <interserver_http_host>127.0.0.1</interserver_http_host>
              <interserver_http_port>\(shard.interserverPort)</interserver_http_port>
            """
        } ?? ""
        let config = """
            <yandex>
              <logger><level>warning</level><log>\(folder)/server.log</log><errorlog>\(folder)/error.log</errorlog><console>0</console></logger>
              <listen_host>127.0.0.1</listen_host>
              <http_port>\(shard.httpPort)</http_port>
              <tcp_port>\(shard.tcpPort)</tcp_port>
              <path>\(folder)/data/</path>
              <tmp_path>\(folder)/tmp/</tmp_path>
              <user_files_path>\(folder)/user_files/</user_files_path>
              <format_schema_path>\(folder)/format_schemas/</format_schema_path>
              <mark_cache_size>67108864</mark_cache_size>
              <uncompressed_cache_size>67108864</uncompressed_cache_size>
              <max_concurrent_queries>50</max_concurrent_queries>
              <default_profile>default</default_profile>
              <default_database>default</default_database>
              <users_config>users.xml</users_config>
              \(replication)
              <remote_servers>
                <\(Self.clusterName)>
                  \(clusterShards)
                </\(Self.clusterName)>
              </remote_servers>
            </yandex>
            """
        let users = """
            <yandex>
              <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
              <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
                <profile>default</profile><quota>default</quota></default></users>
              <quotas><default></default></quotas>
            </yandex>
            """
        try config.write(to: shard.folder.appendingPathComponent("config.xml"), atomically: true, encoding: .utf8)
        try users.write(to: shard.folder.appendingPathComponent("users.xml"), atomically: true, encoding: .utf8)
    }
}
