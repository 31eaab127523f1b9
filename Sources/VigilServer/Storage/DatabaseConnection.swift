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

    /// Inserts rows into `table`: `values` holds `columns.count` values per row, row after row.
    /// A row that breaks a constraint (a duplicate key) fails the whole call; returns the rows
    /// inserted. PostgreSQL streams them with `COPY … FROM STDIN`, which skips the per-statement
    /// expression set-up of a multi-row `INSERT` and fills heap pages several rows per WAL
    /// record; the default is a multi-row `INSERT` per 100 rows.
    @discardableResult
    func insertRows(into table: String, columns: [String], values: [SQLValue]) throws -> Int
}

extension DatabaseConnection {
    @discardableResult
    public func insertRows(into table: String, columns: [String], values: [SQLValue]) throws -> Int {
        try insertRowsInStatements(into: table, columns: columns, values: values)
    }

    /// Rows (`columns.count` values each) as multi-row `INSERT` statements of at most 100 rows,
    /// `clause` (an `ON CONFLICT …`) after each; returns the rows the statements report inserted.
    @discardableResult
    func insertRowsInStatements(into table: String, columns: [String], values: [SQLValue], clause: String = "") throws -> Int {
        guard !columns.isEmpty, !values.isEmpty else { return 0 }
        guard values.count % columns.count == 0 else {
            throw DatabaseError(backend: dialect == .sqlite ? .sqlite : .postgres, code: "bind",
                                message: "\(values.count) values do not make rows of \(columns.count) columns",
                                operation: "insert rows")
        }
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        let rowsPerStatement = 100
        var inserted = 0
        var start = 0
        while start < values.count {
            let end = min(start + rowsPerStatement * columns.count, values.count)
            let rows = (end - start) / columns.count
            let sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
                + Array(repeating: row, count: rows).joined(separator: ", ") + (clause.isEmpty ? "" : " " + clause)
            inserted += try execute(sql, Array(values[start..<end]))
            start = end
        }
        return inserted
    }

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
