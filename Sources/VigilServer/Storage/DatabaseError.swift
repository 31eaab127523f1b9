/// A failed database call, keeping what the C library said together with the SQL that failed:
/// the backend's result code (SQLite's extended code, PostgreSQL's SQLSTATE), its message,
/// the statement and the operation.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// Which library failed.
    public enum Backend: String, Sendable { case sqlite, postgres }

    /// The backend.
    public var backend: Backend
    /// SQLite's extended result code as a number, or PostgreSQL's five-character SQLSTATE.
    public var code: String
    /// The library's message.
    public var message: String
    /// The statement, when one was running.
    public var sql: String?
    /// What was being done: `open`, `prepare`, `step`, `exec`, `connect`…
    public var operation: String

    /// Creates an error.
    public init(backend: Backend, code: String, message: String, sql: String? = nil, operation: String) {
        self.backend = backend
        self.code = code
        self.message = message
        self.sql = sql
        self.operation = operation
    }

    public var description: String {
        var text = "\(backend) \(operation) failed (\(code)): \(message)"
        if let sql { text += " — SQL: \(sql.count > 300 ? String(sql.prefix(300)) + "…" : sql)" }
        return text
    }

    /// Whether retrying the whole transaction may succeed: a deadlock, a serialization
    /// failure, or SQLite's busy/locked.
    public var isTransient: Bool {
        switch backend {
        case .postgres: return code == "40P01" || code == "40001"
        case .sqlite:
            let primary = (Int32(code) ?? 0) & 0xFF
            return primary == 5 || primary == 6  // SQLITE_BUSY, SQLITE_LOCKED
        }
    }

    /// Whether the failure is a broken connection (PostgreSQL class 08, or admin shutdown).
    public var isConnectionLost: Bool {
        backend == .postgres && (code.hasPrefix("08") || code == "57P01" || code == "57P02" || code == "57P03")
    }

    /// Whether a unique or primary-key constraint was violated.
    public var isUniqueViolation: Bool {
        switch backend {
        case .postgres: return code == "23505"
        case .sqlite: return code == "2067" || code == "1555"  // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
        }
    }
}
