import CLibPQ
import Foundation

/// A connection to PostgreSQL through libpq, with statements prepared once (`PQprepare`) and
/// executed with bound parameters (`PQexecPrepared`).
///
/// SQL is written with `?` placeholders and rewritten to `$1…$n` here. Parameters travel as
/// text except blobs (binary); results come back as text and are typed by column OID.
/// Threading: one thread at a time.
public final class PostgresConnection: DatabaseConnection {
    /// The SQL dialect.
    public var dialect: SQLDialect { .postgres }
    private var handle: OpaquePointer?
    private var statements: [String: (name: String, parameters: Int)] = [:]
    private var nextStatement = 0

    /// Connects with a libpq connection string or URL (`postgres://user@host:port/db`).
    public init(url: String) throws {
        guard let connection = PQconnectdb(url) else {
            throw DatabaseError(backend: .postgres, code: "08000", message: "PQconnectdb returned NULL", operation: "connect")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(connection)
            throw DatabaseError(backend: .postgres, code: "08001", message: message, operation: "connect")
        }
        handle = connection
        // IF NOT EXISTS notices would otherwise be printed on stderr by libpq.
        try executeScript("SET client_min_messages = warning")
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Whether the connection is still usable.
    public var isHealthy: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        let result = try run(sql, arguments)
        defer { PQclear(result) }
        let tuples = String(cString: PQcmdTuples(result))
        return Int(tuples) ?? 0
    }

    public func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let result = try run(sql, arguments)
        defer { PQclear(result) }
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = ColumnNames((0..<columnCount).map { String(cString: PQfname(result, Int32($0))) })
        let types = (0..<columnCount).map { PQftype(result, Int32($0)) }
        var rows: [SQLRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<Int32(rowCount) {
            var values: [SQLValue] = []
            values.reserveCapacity(columnCount)
            for column in 0..<Int32(columnCount) {
                if PQgetisnull(result, row, column) != 0 {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, row, column))
                let pointer = PQgetvalue(result, row, column)!
                let text = pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                }
                values.append(Self.value(text, type: types[Int(column)]))
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    public func executeScript(_ sql: String) throws {
        guard let handle else { throw closedError(sql) }
        guard let result = PQexec(handle, sql) else { throw connectionError(sql, operation: "exec") }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw resultError(result, sql: sql, operation: "exec")
        }
    }

    /// `COPY table (columns) FROM STDIN` in text format: every row in one stream, values
    /// escaped (backslash, tab, newline, carriage return), `\N` for NULL, blobs as `\x` hex.
    @discardableResult
    public func insertRows(into table: String, columns: [String], values: [SQLValue]) throws -> Int {
        guard !columns.isEmpty, !values.isEmpty else { return 0 }
        guard let handle else { throw closedError(nil) }
        guard values.count % columns.count == 0 else {
            throw DatabaseError(backend: .postgres, code: "08P01",
                                message: "\(values.count) values do not make rows of \(columns.count) columns",
                                operation: "copy")
        }
        let sql = "COPY \(table) (\(columns.joined(separator: ", "))) FROM STDIN"
        let stream = Self.copyText(values, columns: columns.count)
        guard let started = PQexec(handle, sql) else { throw connectionError(sql, operation: "copy") }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            let error = resultError(started, sql: sql, operation: "copy")
            PQclear(started)
            throw error
        }
        PQclear(started)
        let sent = stream.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
        }
        // On a failed send the COPY is ended with an error so the server leaves COPY mode.
        let ended = sent == 1 ? PQputCopyEnd(handle, nil) : PQputCopyEnd(handle, "client failed to send the rows")
        var failure: DatabaseError?
        var copied = 0
        if ended != 1 { failure = connectionError(sql, operation: "copy") }
        // The COPY's outcome, then nothing: every result is read so the connection is idle again.
        while let result = PQgetResult(handle) {
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                copied = Int(String(cString: PQcmdTuples(result))) ?? 0
            } else if failure == nil {
                failure = resultError(result, sql: sql, operation: "copy")
            }
            PQclear(result)
        }
        if sent != 1, failure == nil { failure = connectionError(sql, operation: "copy") }
        if let failure { throw failure }
        return copied
    }

    /// A double as PostgreSQL's `float8` input reads it, the non-finite values included.
    private static func text(of number: Double) -> String {
        number.isFinite ? String(number) : (number.isNaN ? "NaN" : (number > 0 ? "Infinity" : "-Infinity"))
    }

    /// The rows of ``insertRows(into:columns:values:)`` in COPY's text format.
    static func copyText(_ values: [SQLValue], columns: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 24)
        let hex = Array("0123456789abcdef".utf8)
        for (index, value) in values.enumerated() {
            switch value {
            case .null:
                out.append(0x5C); out.append(0x4E)  // \N
            case .integer(let number):
                out.append(contentsOf: String(number).utf8)
            case .real(let number):
                out.append(contentsOf: Self.text(of: number).utf8)
            case .text(let text):
                var copy = text
                copy.withUTF8 { utf8 in
                    for byte in utf8 {
                        switch byte {
                        case 0x5C: out.append(0x5C); out.append(0x5C)
                        case 0x09: out.append(0x5C); out.append(0x74)  // \t
                        case 0x0A: out.append(0x5C); out.append(0x6E)  // \n
                        case 0x0D: out.append(0x5C); out.append(0x72)  // \r
                        case 0x00: continue  // PostgreSQL text cannot hold NUL (as for bound parameters)
                        default: out.append(byte)
                        }
                    }
                }
            case .blob(let data):
                // bytea's hex input `\x…`, its backslash escaped for COPY.
                out.append(0x5C); out.append(0x5C); out.append(0x78)
                for byte in data { out.append(hex[Int(byte >> 4)]); out.append(hex[Int(byte & 0x0F)]) }
            }
            out.append((index + 1) % columns == 0 ? 0x0A : 0x09)
        }
        return out
    }

    private func run(_ sql: String, _ arguments: [SQLValue]) throws -> OpaquePointer {
        guard let handle else { throw closedError(sql) }
        let statement = try prepare(sql)
        guard statement.parameters == arguments.count else {
            throw DatabaseError(backend: .postgres, code: "08P01",
                                message: "statement takes \(statement.parameters) parameters, got \(arguments.count)",
                                sql: sql, operation: "bind")
        }
        // Every parameter in one buffer: text NUL-terminated, a blob as raw bytes; -1 for NULL.
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        offsets.reserveCapacity(arguments.count)
        lengths.reserveCapacity(arguments.count)
        formats.reserveCapacity(arguments.count)
        for argument in arguments {
            let start = bytes.count
            switch argument {
            case .null:
                offsets.append(-1); lengths.append(0); formats.append(0)
                continue
            case .integer(let number):
                bytes.append(contentsOf: String(number).utf8)
            case .real(let number):
                bytes.append(contentsOf: Self.text(of: number).utf8)
            case .text(let text):
                // PostgreSQL text cannot hold NUL; the server's sanitizer already removes it.
                var copy = text
                copy.withUTF8 { utf8 in
                    if utf8.contains(0) {
                        bytes.append(contentsOf: utf8.lazy.filter { $0 != 0 })
                    } else {
                        bytes.append(contentsOf: utf8)
                    }
                }
            case .blob(let data):
                bytes.append(contentsOf: data)
                offsets.append(start); lengths.append(Int32(data.count)); formats.append(1)
                continue
            }
            offsets.append(start); lengths.append(Int32(bytes.count - start)); formats.append(0)
            bytes.append(0)
        }
        // Never empty, so that the buffer has an address for zero-length values.
        bytes.append(0)
        let result: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let values: [UnsafePointer<CChar>?] = offsets.map { $0 < 0 ? nil : (base + $0).assumingMemoryBound(to: CChar.self) }
            return PQexecPrepared(handle, statement.name, Int32(arguments.count), values, lengths, formats, 0)
        }
        guard let result else { throw connectionError(sql, operation: "execute") }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let error = resultError(result, sql: sql, operation: "execute")
            PQclear(result)
            throw error
        }
        return result
    }

    private func prepare(_ sql: String) throws -> (name: String, parameters: Int) {
        if let cached = statements[sql] { return cached }
        guard let handle else { throw closedError(sql) }
        let (rewritten, count) = Self.numberPlaceholders(sql)
        let name = "vigil_\(nextStatement)"
        nextStatement += 1
        guard let result = PQprepare(handle, name, rewritten, Int32(count), nil) else {
            throw connectionError(sql, operation: "prepare")
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw resultError(result, sql: sql, operation: "prepare") }
        statements[sql] = (name, count)
        return (name, count)
    }

    /// Rewrites `?` placeholders to `$1…$n`, leaving quoted strings and identifiers alone.
    static func numberPlaceholders(_ sql: String) -> (String, Int) {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                out.append(character)
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
                out.append(character)
            } else if character == "?" {
                count += 1
                out += "$\(count)"
            } else {
                out.append(character)
            }
        }
        return (out, count)
    }

    private static func value(_ text: String, type: Oid) -> SQLValue {
        switch type {
        case 20, 21, 23, 26: return Int64(text).map(SQLValue.integer) ?? .text(text)  // int8, int2, int4, oid
        case 700, 701, 1700: return Double(text).map(SQLValue.real) ?? .text(text)    // float4, float8, numeric
        case 16: return .integer(text == "t" ? 1 : 0)                                  // bool
        case 17: return .blob(decodeByteaHex(text))                                    // bytea
        default: return .text(text)
        }
    }

    private static func decodeByteaHex(_ text: String) -> Data {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == 0x5C, utf8[1] == 0x78 else { return Data(utf8) }  // "\x"
        var out = Data(capacity: (utf8.count - 2) / 2)
        var index = 2
        func nibble(_ byte: UInt8) -> UInt8 {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x61...0x66: return byte - 0x61 + 10
            case 0x41...0x46: return byte - 0x41 + 10
            default: return 0
            }
        }
        while index + 1 < utf8.count {
            out.append(nibble(utf8[index]) << 4 | nibble(utf8[index + 1]))
            index += 2
        }
        return out
    }

    private func resultError(_ result: OpaquePointer, sql: String?, operation: String) -> DatabaseError {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? "XX000"
        let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
        return DatabaseError(backend: .postgres, code: state, message: message, sql: sql, operation: operation)
    }

    private func connectionError(_ sql: String?, operation: String) -> DatabaseError {
        let message = handle.map { String(cString: PQerrorMessage($0)) } ?? "connection closed"
        return DatabaseError(backend: .postgres, code: "08006",
                             message: message.trimmingCharacters(in: .whitespacesAndNewlines), sql: sql, operation: operation)
    }

    private func closedError(_ sql: String?) -> DatabaseError {
        DatabaseError(backend: .postgres, code: "08003", message: "connection is closed", sql: sql, operation: "execute")
    }
}
