import Foundation

/// Where the event table lives:
/// `clickhouse://HOST:PORT/DATABASE?cluster=NAME[&user=U][&password=P][&nodes=H:P|H:P,H:P|H:P][&replicated=1][&flush=S]`.
///
/// `HOST:PORT` is a node's HTTP interface (8123 by default). `cluster` names an entry of the
/// servers' `remote_servers`; the `Distributed` table reads over it. Vigil writes each shard's
/// rows to that shard's local table itself, over HTTP: `nodes` lists the HTTP addresses of each
/// shard's nodes, shards in the cluster's order separated by `,`, a shard's replicas by `|`;
/// rows go to a shard's first replica, and the others only get the tables. Without it each
/// shard's replicas are reached at their `system.clusters` host names and the entry node's HTTP
/// port. `replicated=1` creates the tables that keep rows as `Replicated…MergeTree` in
/// ZooKeeper under `/clickhouse/tables/{shard}/DATABASE/TABLE`, replica `{replica}` (macros each
/// node's configuration defines); without it only the first replica is used. `flush` is how
/// often, at most, the server inserts into each shard (seconds, 0.1–60, default
/// ``defaultFlushInterval``).
public struct ClickHouseLocation: Sendable, Hashable, CustomStringConvertible {
    /// The entry node's host.
    public var host: String
    /// The entry node's HTTP port.
    public var port: UInt16
    /// The database holding Vigil's tables (created when missing).
    public var database: String
    /// The cluster name in `remote_servers`.
    public var cluster: String
    /// The user (ClickHouse's `default` when nil).
    public var user: String?
    /// The password.
    public var password: String?
    /// The HTTP address of each shard's first replica (the one written to), in shard order,
    /// when given.
    public var nodes: [(host: String, port: UInt16)]? {
        get { nodeList.map { $0.map { ($0[0].host, $0[0].port) } } }
        set { nodeList = newValue?.map { [Node(host: $0.host, port: $0.port)] } }
    }
    /// Every shard's replicas, in shard order, the first being the one written to, when given.
    public var replicaNodes: [[(host: String, port: UInt16)]]? {
        nodeList.map { $0.map { $0.map { ($0.host, $0.port) } } }
    }
    private var nodeList: [[Node]]?
    /// Whether the tables that keep rows are created as `Replicated…MergeTree` (ZooKeeper).
    public var replicated = false
    /// The least time between two inserts into a shard, in seconds.
    public var flushInterval: Double = Self.defaultFlushInterval

    /// Every shard insert writes a part into the event table and into each view's table
    /// (a few hundred files per shard), and the parts are merged later: fewer, larger
    /// inserts cost the shards less (under the bench load, 49–59 µs of the shards' CPU per
    /// event every 5 s against 65–105 µs every second), and several servers inserting often
    /// are how a shard reaches ClickHouse's "too many parts" refusal. The price: events reach
    /// the dashboard up to this long after they are stored.
    public static let defaultFlushInterval: Double = 5

    private struct Node: Sendable, Hashable { var host: String; var port: UInt16 }

    /// Parses `text`; throws ``ClickHouseError/badLocation(_:)`` with the reason.
    public init(_ text: String) throws {
        guard text.hasPrefix("clickhouse://"), let url = URLComponents(string: text) else {
            throw ClickHouseError.badLocation("expected clickhouse://HOST:PORT/DATABASE?cluster=NAME, not \"\(text.prefix(200))\"")
        }
        guard let host = url.host, !host.isEmpty else { throw ClickHouseError.badLocation("the URL names no host") }
        self.host = host
        port = UInt16(exactly: url.port ?? 8123) ?? 8123
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        guard Self.isIdentifier(path) else {
            throw ClickHouseError.badLocation("the database name \"\(path.prefix(64))\" must be letters, digits and _ (and not empty)")
        }
        database = path
        var cluster: String?
        for item in url.queryItems ?? [] {
            switch item.name {
            case "cluster": cluster = item.value
            case "user": user = item.value
            case "password": password = item.value
            case "nodes":
                nodeList = try (item.value ?? "").split(separator: ",", omittingEmptySubsequences: false).map { shard in
                    try shard.split(separator: "|", omittingEmptySubsequences: false).map { entry in
                        let parts = entry.split(separator: ":")
                        guard parts.count == 2, let port = UInt16(parts[1]), !parts[0].isEmpty else {
                            throw ClickHouseError.badLocation("nodes: expected HOST:PORT,HOST:PORT (a shard's replicas joined by |), "
                                + "not \"\(entry.prefix(100))\"")
                        }
                        return Node(host: String(parts[0]), port: port)
                    }
                }
            case "replicated":
                switch item.value {
                case "1", "true": replicated = true
                case "0", "false": replicated = false
                default: throw ClickHouseError.badLocation("replicated: expected 1 or 0, not \"\((item.value ?? "").prefix(40))\"")
                }
            case "flush":
                guard let seconds = Double(item.value ?? ""), seconds >= 0.1, seconds <= 60 else {
                    throw ClickHouseError.badLocation("flush: expected seconds from 0.1 to 60, not \"\((item.value ?? "").prefix(40))\"")
                }
                flushInterval = seconds
            default: throw ClickHouseError.badLocation("unknown parameter \"\(item.name.prefix(40))\" (known: cluster, user, password, nodes, replicated, flush)")
            }
        }
        guard let cluster, Self.isIdentifier(cluster) else {
            throw ClickHouseError.badLocation("?cluster=NAME is required (a remote_servers entry: letters, digits, _)")
        }
        self.cluster = cluster
        if !replicated, let nodeList, nodeList.contains(where: { $0.count > 1 }) {
            throw ClickHouseError.badLocation("nodes= lists a shard's replicas (|) but replicated=1 is not set: "
                + "replicas of plain MergeTree tables would not copy each other's rows")
        }
    }

    /// The URL without the password.
    public var description: String {
        var text = "clickhouse://\(host):\(port)/\(database)?cluster=\(cluster)"
        if let user { text += "&user=\(user)" }
        if let nodeList {
            text += "&nodes=" + nodeList.map { $0.map { "\($0.host):\($0.port)" }.joined(separator: "|") }.joined(separator: ",")
        }
        if replicated { text += "&replicated=1" }
        if flushInterval != Self.defaultFlushInterval { text += "&flush=\(flushInterval)" }
        return text
    }

    public static func == (a: ClickHouseLocation, b: ClickHouseLocation) -> Bool { a.description == b.description && a.password == b.password }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// Whether `text` is a plain identifier, safe to write into SQL unquoted.
    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }
            && !(text.utf8.first! >= 0x30 && text.utf8.first! <= 0x39)
    }
}
