import Foundation

/// A project: one app (or one environment of it) with its own ingest key, events and issues.
public struct Project: Sendable, Hashable, Codable {
    /// Database id.
    public var id: Int64
    /// Unique name, e.g. `default`, `shop-ios`.
    public var name: String
    /// When it was created.
    public var createdAt: Date
}

extension ServerStore {
    /// Creates project `name` with a fresh ingest key; returns the project and the key, which
    /// is shown only now (only its SHA-256 is stored).
    public func createProject(name: String, now: Date = Date()) throws -> (Project, ingestKey: String) {
        let cleanName = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !cleanName.isEmpty, cleanName.utf8.count <= 100,
              cleanName.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
            throw ProjectError.invalidName(name)
        }
        let key = SecretToken.generate(prefix: "vk_")
        let created = ServerStore.millis(now)
        do {
            let id = try database.write { connection in
                try connection.scalar(
                    "INSERT INTO projects (name, ingest_key_hash, created_at) VALUES (?, ?, ?) RETURNING id",
                    [.text(cleanName), .text(SecretToken.hash(key)), .integer(created)]).int64 ?? 0
            }
            return (Project(id: id, name: cleanName, createdAt: ServerStore.date(created)), key)
        } catch let error as DatabaseError where error.isUniqueViolation {
            throw ProjectError.nameTaken(cleanName)
        }
    }

    /// Creates project `name` unless it exists; the key is returned only when it was created now.
    public func ensureProject(name: String, now: Date = Date()) throws -> (Project, ingestKey: String?) {
        if let existing = try project(named: name) { return (existing, nil) }
        do {
            let (project, key) = try createProject(name: name, now: now)
            return (project, key)
        } catch ProjectError.nameTaken {
            // Another server created it between the lookup and the insert.
            guard let existing = try project(named: name) else { throw ProjectError.nameTaken(name) }
            return (existing, nil)
        }
    }

    /// Replaces the project's ingest key; the old one stops working at once.
    public func rotateIngestKey(projectID: Int64) throws -> String {
        let key = SecretToken.generate(prefix: "vk_")
        let changed = try database.write { connection in
            try connection.execute("UPDATE projects SET ingest_key_hash = ? WHERE id = ?",
                                   [.text(SecretToken.hash(key)), .integer(projectID)])
        }
        guard changed == 1 else { throw ProjectError.unknown("id \(projectID)") }
        return key
    }

    /// The project whose ingest key hashes to `keyHash`.
    public func project(ingestKeyHash keyHash: String) throws -> Project? {
        try database.read { connection in
            try connection.first("SELECT id, name, created_at FROM projects WHERE ingest_key_hash = ?", [.text(keyHash)])
                .map(Self.project)
        }
    }

    /// The project called `name`.
    public func project(named name: String) throws -> Project? {
        try database.read { connection in
            try connection.first("SELECT id, name, created_at FROM projects WHERE name = ?", [.text(name)]).map(Self.project)
        }
    }

    /// The project with database id `id`.
    public func project(id: Int64) throws -> Project? {
        try database.read { connection in
            try connection.first("SELECT id, name, created_at FROM projects WHERE id = ?", [.integer(id)]).map(Self.project)
        }
    }

    /// Every project, by name.
    public func projects() throws -> [Project] {
        try database.read { connection in
            try connection.query("SELECT id, name, created_at FROM projects ORDER BY name").map(Self.project)
        }
    }

    private static func project(_ row: SQLRow) -> Project {
        Project(id: row.int64("id"), name: row.string("name") ?? "", createdAt: date(row.int64("created_at")))
    }
}

/// Why a project operation failed.
public enum ProjectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Empty, too long (over 100 bytes) or containing control characters.
    case invalidName(String)
    /// A project with this name exists.
    case nameTaken(String)
    /// No such project.
    case unknown(String)

    public var description: String {
        switch self {
        case .invalidName(let name): return "invalid project name \"\(name.prefix(120))\": 1–100 bytes, no control characters"
        case .nameTaken(let name): return "a project named \"\(name)\" already exists"
        case .unknown(let what): return "no project \(what)"
        }
    }
}
