import Foundation

/// Where the event table lives: `clickhouse://HOST:PORT/DATABASE?cluster=NAME[&user=U][&password=P][&nodes=H:P,H:P][&flush=S]`.
///
/// `HOST:PORT` is a node's HTTP interface (8123 by default). `cluster` names an entry of the
/// servers' `remote_servers`; the `Distributed` table reads over it. Vigil writes each shard's
/// rows to that shard's local table itself, over HTTP: `nodes` lists the HTTP address of one
/// node per shard, in the cluster's shard order; without it each shard's first replica is
/// reached at its `system.clusters` host name and the entry node's HTTP port. `flush` is how
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
    /// One HTTP address per shard, in shard order, when given.
    public var nodes: [(host: String, port: UInt16)]? {
        get { nodeList.map { $0.map { ($0.host, $0.port) } } }
        set { nodeList = newValue?.map { Node(host: $0.host, port: $0.port) } }
    }
    private var nodeList: [Node]?
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
                nodeList = try (item.value ?? "").split(separator: ",").map { entry in
                    let parts = entry.split(separator: ":")
                    guard parts.count == 2, let port = UInt16(parts[1]), !parts[0].isEmpty else {
                        throw ClickHouseError.badLocation("nodes: expected HOST:PORT,HOST:PORT, not \"\(entry.prefix(100))\"")
                    }
                    return Node(host: String(parts[0]), port: port)
                }
            case "flush":
                guard let seconds = Double(item.value ?? ""), seconds >= 0.1, seconds <= 60 else {
                    throw ClickHouseError.badLocation("flush: expected seconds from 0.1 to 60, not \"\((item.value ?? "").prefix(40))\"")
                }
                flushInterval = seconds
            default: throw ClickHouseError.badLocation("unknown parameter \"\(item.name.prefix(40))\" (known: cluster, user, password, nodes, flush)")
            }
        }
        guard let cluster, Self.isIdentifier(cluster) else {
            throw ClickHouseError.badLocation("?cluster=NAME is required (a remote_servers entry: letters, digits, _)")
        }
        self.cluster = cluster
    }

    /// The URL without the password.
    public var description: String {
        var text = "clickhouse://\(host):\(port)/\(database)?cluster=\(cluster)"
        if let user { text += "&user=\(user)" }
        if let nodeList { text += "&nodes=" + nodeList.map { "\($0.host):\($0.port)" }.joined(separator: ",") }
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
