import Foundation

/// A PostgreSQL database reached through a pool of libpq connections.
///
/// Write transactions retry on deadlock and serialization failures; a connection that broke is
/// dropped from the pool and replaced on the next checkout.
public final class PostgresDatabase: Database, @unchecked Sendable {
    /// The SQL dialect.
    public var dialect: SQLDialect { .postgres }
    private let pool: ConnectionPool<PostgresConnection>
    /// The connection URL without its password.
    public let displayName: String

    /// Connects (one connection at once, to fail early on a bad URL; more on demand up to `connections`).
    public init(url: String, connections: Int = 8) throws {
        displayName = Self.redact(url)
        pool = ConnectionPool(capacity: connections) { try PostgresConnection(url: url) }
        let first = try pool.checkout()
        pool.checkin(first)
    }

    @discardableResult
    public func write<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try pool.with({ connection in
                    try connection.execute(dialect.beginWrite)
                    do {
                        let value = try body(connection)
                        try connection.execute("COMMIT")
                        return value
                    } catch {
                        if connection.isHealthy { _ = try? connection.execute("ROLLBACK") }
                        throw error
                    }
                }, discardWhen: Self.isBroken)
            } catch let error as DatabaseError where (error.isTransient || error.isConnectionLost) && attempt < 6 {
                // Back off a little so that two transactions that deadlocked do not meet again.
                usleep(UInt32.random(in: 1_000...(5_000 * UInt32(attempt))))
                continue
            }
        }
    }

    public func read<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        try pool.with({ connection in try body(connection) }, discardWhen: Self.isBroken)
    }

    public func sizeInBytes() throws -> Int64 {
        try read { try $0.scalar("SELECT pg_database_size(current_database())").int64 ?? 0 }
    }

    public func close() {
        pool.close()
    }

    private static func isBroken(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.isConnectionLost ?? false
    }

    /// `postgres://user:secret@host/db` → `postgres://user@host/db`.
    static func redact(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://"), scheme.upperBound < at else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + String(url[at...])
    }
}
