/// The few places where the SQL Vigil writes differs between SQLite and PostgreSQL.
///
/// Statements are written once with `?` placeholders; the PostgreSQL connection rewrites them
/// to `$1…$n`. Both accept `INSERT … ON CONFLICT … DO UPDATE/NOTHING` and `RETURNING`.
public enum SQLDialect: String, Sendable {
    case sqlite
    case postgres

    /// An auto-incrementing 64-bit primary key column type.
    public var autoIncrementPrimaryKey: String {
        self == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
    }

    /// The binary column type.
    public var blob: String { self == .sqlite ? "BLOB" : "BYTEA" }

    /// What starts a write transaction: SQLite takes the write lock at once, so that two
    /// writers never deadlock upgrading a read lock.
    public var beginWrite: String { self == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN" }

    /// Suffix of a `SELECT` that claims rows for this transaction, skipping rows another
    /// transaction holds (PostgreSQL); SQLite has a single writer, so the write lock suffices.
    public var claimRows: String { self == .sqlite ? "" : " FOR UPDATE SKIP LOCKED" }

    /// The value at `path` (object keys) of the JSON text in `column`, as SQL text or number
    /// (NULL when absent or JSON null): `json_extract` on SQLite, `#>>` on PostgreSQL (text,
    /// so numbers are cast by ``jsonNumber(_:_:)``). `path` must be identifiers written in this
    /// module, never input.
    public func jsonValue(_ column: String, _ path: [String]) -> String {
        switch self {
        case .sqlite: return "json_extract(\(column), '$.\(path.joined(separator: "."))')"
        case .postgres: return "(CAST(\(column) AS json) #>> '{\(path.joined(separator: ","))}')"
        }
    }

    /// ``jsonValue(_:_:)`` as a double.
    public func jsonNumber(_ column: String, _ path: [String]) -> String {
        "CAST(\(jsonValue(column, path)) AS DOUBLE PRECISION)"
    }
}
