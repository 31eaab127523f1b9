import Foundation

/// Everything the server keeps, on SQLite or PostgreSQL: projects, events, issues, symbols,
/// remote configuration, roll-ups and settings. The typed operations live in extensions by
/// concern (`ServerStore+Events.swift`, `+Issues`, `+Symbols`…); each is one parameterized
/// statement or one transaction.
///
/// Threading: safe to share; every call takes a connection from the ``Database``.
public final class ServerStore: Sendable {
    /// The database underneath.
    public let database: any Database

    /// Wraps an open database; call ``migrate()`` before anything else.
    public init(database: any Database) {
        self.database = database
    }

    /// Opens the database at `location` and brings its schema up to date.
    public static func open(_ location: DatabaseLocation, connections: Int = 8) throws -> ServerStore {
        let store = ServerStore(database: try location.open(connections: connections))
        try store.migrate()
        return store
    }

    /// The SQL dialect.
    public var dialect: SQLDialect { database.dialect }

    /// Creates missing tables and applies pending migrations, in one transaction.
    ///
    /// Throws when the database was written by a newer server (its schema version is higher
    /// than ``Schema/currentVersion``), rather than guessing.
    public func migrate() throws {
        let migrations = Schema.migrations(dialect)
        try database.write { connection in
            if connection.dialect == .postgres {
                // Serializes concurrent starts; released at commit.
                try connection.execute("SELECT pg_advisory_xact_lock(7310001)")
            }
            try connection.execute("CREATE TABLE IF NOT EXISTS vigil_schema (version INTEGER NOT NULL)")
            let current = try connection.scalar("SELECT MAX(version) FROM vigil_schema").int ?? 0
            guard current <= Schema.currentVersion else {
                throw DatabaseError(backend: connection.dialect == .sqlite ? .sqlite : .postgres, code: "schema",
                                    message: "the database is at schema version \(current), newer than this server's "
                                        + "\(Schema.currentVersion); upgrade vigil", operation: "migrate")
            }
            for version in (current + 1)...max(current + 1, Schema.currentVersion) where version <= migrations.count {
                for statement in migrations[version - 1] {
                    try connection.execute(statement)
                }
                try connection.execute("INSERT INTO vigil_schema (version) VALUES (?)", [.int(version)])
            }
        }
    }

    /// The schema version the database is at.
    public func schemaVersion() throws -> Int {
        try database.read { try $0.scalar("SELECT MAX(version) FROM vigil_schema").int ?? 0 }
    }

    /// Milliseconds since 1970 for `date`.
    static func millis(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date for `millis` since 1970.
    static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}
