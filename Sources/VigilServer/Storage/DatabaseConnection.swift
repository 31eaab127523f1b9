/// One open connection to SQLite or PostgreSQL. Statements are prepared once per connection
/// and cached by their SQL text; every value travels as a bound parameter, never inside the SQL.
///
/// Threading: a connection is used by one thread at a time; ``Database`` hands them out.
public protocol DatabaseConnection: AnyObject {
    /// The SQL dialect of this connection.
    var dialect: SQLDialect { get }

    /// Runs a statement that returns no rows; returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int

    /// Runs a statement and returns its rows.
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow]

    /// Runs several semicolon-separated statements without parameters (schema changes).
    func executeScript(_ sql: String) throws
}

extension DatabaseConnection {
    /// Runs a statement without parameters.
    @discardableResult
    public func execute(_ sql: String) throws -> Int { try execute(sql, []) }

    /// Runs a query without parameters.
    public func query(_ sql: String) throws -> [SQLRow] { try query(sql, []) }

    /// The first row of a query, if any.
    public func first(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLRow? {
        try query(sql, arguments).first
    }

    /// The first column of the first row, or `.null`.
    public func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue {
        try query(sql, arguments).first?[0] ?? .null
    }
}

/// A database: a source of connections and transactions, SQLite or PostgreSQL.
///
/// Threading: safe to share; ``write(_:)`` and ``read(_:)`` block until a connection is free.
public protocol Database: Sendable, AnyObject {
    /// The SQL dialect.
    var dialect: SQLDialect { get }

    /// A printable description without secrets (`sqlite:/path`, `postgres://host:port/db`).
    var displayName: String { get }

    /// Runs `body` in one write transaction: committed when it returns, rolled back when it
    /// throws. Retried (up to a few times) when the database reports a deadlock, a
    /// serialization failure or a busy lock, so `body` must not have side effects outside
    /// the database.
    @discardableResult
    func write<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T

    /// Runs `body` on a connection for reading; concurrent readers do not block each other.
    func read<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T

    /// Bytes the database occupies (file sizes, or `pg_database_size`).
    func sizeInBytes() throws -> Int64

    /// Closes every connection; later calls fail.
    func close()
}
