import CSQLite
import Foundation

/// A connection to an SQLite database file, in WAL mode, with a prepared-statement cache.
///
/// Every C call's result is checked and turned into a ``DatabaseError`` carrying the extended
/// result code, the message and the SQL. Statements and the handle are released in `deinit`.
/// Threading: one thread at a time (opened with `SQLITE_OPEN_NOMUTEX`).
public final class SQLiteConnection: DatabaseConnection {
    /// The SQL dialect.
    public var dialect: SQLDialect { .sqlite }
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// The file path.
    public let path: String

    // SQLite copies transient buffers before returning from the bind call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Opens (creating if needed) the database at `path`, sets WAL, `synchronous=NORMAL` (durable
    /// across application crashes; a power loss may drop the last transactions) and a busy timeout.
    public init(path: String, readOnly: Bool = false) throws {
        self.path = path
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let opened { sqlite3_close_v2(opened) }
            throw DatabaseError(backend: .sqlite, code: String(status), message: "\(message) (\(path))", operation: "open")
        }
        handle = opened
        sqlite3_extended_result_codes(opened, 1)
        sqlite3_busy_timeout(opened, 10_000)
        if !readOnly {
            try executeScript("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        }
        try executeScript("PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16000;")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        if let handle { sqlite3_close_v2(handle) }
    }

    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement); sqlite3_clear_bindings(statement) }
        try bind(arguments, to: statement, sql: sql)
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            if status == SQLITE_ROW { continue }
            throw error(status, sql: sql, operation: "step")
        }
        return Int(sqlite3_changes(handle))
    }

    public func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement); sqlite3_clear_bindings(statement) }
        try bind(arguments, to: statement, sql: sql)
        let count = Int(sqlite3_column_count(statement))
        let columns = ColumnNames((0..<count).map { String(cString: sqlite3_column_name(statement, Int32($0))) })
        var rows: [SQLRow] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw error(status, sql: sql, operation: "step") }
            var values: [SQLValue] = []
            values.reserveCapacity(count)
            for index in 0..<Int32(count) {
                values.append(column(statement, index))
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    public func executeScript(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw DatabaseError(backend: .sqlite, code: String(sqlite3_extended_errcode(handle)), message: text,
                                sql: sql, operation: "exec")
        }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, sql: sql, operation: "prepare") }
        statements[sql] = statement
        return statement
    }

    private func bind(_ arguments: [SQLValue], to statement: OpaquePointer, sql: String) throws {
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == arguments.count else {
            throw DatabaseError(backend: .sqlite, code: String(SQLITE_RANGE),
                                message: "statement takes \(expected) parameters, got \(arguments.count)",
                                sql: sql, operation: "bind")
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let number): status = sqlite3_bind_int64(statement, index, number)
            case .real(let number): status = sqlite3_bind_double(statement, index, number)
            case .text(let text):
                if text.isEmpty {
                    status = sqlite3_bind_text(statement, index, "", 0, Self.transient)
                } else {
                    var copy = text
                    status = copy.withUTF8 { bytes in
                        bytes.withMemoryRebound(to: CChar.self) { chars in
                            sqlite3_bind_text(statement, index, chars.baseAddress, Int32(chars.count), Self.transient)
                        }
                    }
                }
            case .blob(let data):
                status = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), Self.transient)
                }
            }
            guard status == SQLITE_OK else { throw error(status, sql: sql, operation: "bind") }
        }
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let pointer = sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let pointer = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: pointer, count: count))
        default: return .null
        }
    }

    private func error(_ status: Int32, sql: String?, operation: String) -> DatabaseError {
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? status
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
        return DatabaseError(backend: .sqlite, code: String(extended), message: message, sql: sql, operation: operation)
    }
}
