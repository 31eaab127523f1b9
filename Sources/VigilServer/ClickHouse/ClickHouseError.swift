/// Why a ClickHouse request failed.
public enum ClickHouseError: Error, CustomStringConvertible, Sendable {
    /// The `--events` URL cannot be used; the text says what is wrong.
    case badLocation(String)
    /// The connection failed or broke: the request may or may not have taken effect.
    case transport(String)
    /// ClickHouse answered with an error status; its message (which carries its error code).
    case server(status: Int, message: String, query: String)
    /// An answer did not have the expected shape.
    case unexpectedAnswer(String)
    /// The cluster does not match what Vigil needs (unknown cluster, no node for a shard…).
    case cluster(String)
    /// A node's replicated tables cannot take an insert now (ZooKeeper unreachable, or its
    /// session lost and not yet made again); nothing was sent.
    case readOnlyReplicas(String)

    public var description: String {
        switch self {
        case .badLocation(let text): return "--events: \(text)"
        case .transport(let text): return "ClickHouse: \(text)"
        case .server(let status, let message, let query):
            return "ClickHouse answered \(status): \(message.trimmingCharacters(in: .whitespacesAndNewlines).prefix(600)) (query: \(query.prefix(200)))"
        case .unexpectedAnswer(let text): return "ClickHouse: unexpected answer: \(text)"
        case .cluster(let text): return "ClickHouse cluster: \(text)"
        case .readOnlyReplicas(let text): return "ClickHouse: replicated tables read-only: \(text)"
        }
    }
}
