/// Where the server's data lives, as given to `--db`: `sqlite:PATH` (or a bare path ending in
/// `.sqlite`/`.db`) or a PostgreSQL URL `postgres://…` / `postgresql://…`.
public enum DatabaseLocation: Sendable, Hashable, CustomStringConvertible {
    /// An SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL connection URL.
    case postgres(url: String)

    /// Parses a `--db` value.
    public init(_ text: String) throws {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw DatabaseLocationError(text: text) }
            self = .sqlite(path: path.hasPrefix("//") ? String(path.dropFirst(2)) : path)
        } else if text.hasSuffix(".sqlite") || text.hasSuffix(".db") || text.hasSuffix(".sqlite3") {
            self = .sqlite(path: text)
        } else {
            throw DatabaseLocationError(text: text)
        }
    }

    /// Opens the database (no schema work; see ``ServerStore``).
    public func open(connections: Int = 8) throws -> any Database {
        switch self {
        case .sqlite(let path): return try SQLiteDatabase(path: path, readers: max(2, connections / 2))
        case .postgres(let url): return try PostgresDatabase(url: url, connections: connections)
        }
    }

    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:\(path)"
        case .postgres(let url): return PostgresDatabase.redact(url)
        }
    }
}

/// A `--db` value that names no supported database.
public struct DatabaseLocationError: Error, Sendable, CustomStringConvertible {
    /// What was given.
    public var text: String
    public var description: String {
        "--db \"\(text)\": expected sqlite:PATH or postgres://USER@HOST:PORT/DATABASE"
    }
}
