import Foundation

/// A project's stored remote-configuration document.
public struct StoredConfig: Sendable, Hashable {
    /// The document as served.
    public var document: String
    /// Its entity tag (quoted, as sent in `ETag`).
    public var etag: String
    /// When it was last replaced.
    public var updatedAt: Date
}

extension ServerStore {
    /// The project's configuration document, nil when none was ever stored.
    public func remoteConfig(projectID: Int64) throws -> StoredConfig? {
        try database.read { connection in
            try connection.first("SELECT document, etag, updated_at FROM remote_config WHERE project_id = ?", [.integer(projectID)])
                .map { StoredConfig(document: $0.string("document") ?? "{}", etag: $0.string("etag") ?? "\"\"",
                                    updatedAt: ServerStore.date($0.int64("updated_at"))) }
        }
    }

    /// Replaces the project's configuration document; returns the new entity tag.
    @discardableResult
    public func putRemoteConfig(projectID: Int64, document: String, now: Date = Date()) throws -> String {
        let etag = Self.etag(for: document)
        try database.write { connection in
            try connection.execute("""
                INSERT INTO remote_config (project_id, document, etag, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (project_id) DO UPDATE SET document = excluded.document, etag = excluded.etag,
                    updated_at = excluded.updated_at
                """, [.integer(projectID), .text(document), .text(etag), .integer(ServerStore.millis(now))])
        }
        return etag
    }

    /// The entity tag of a document: a quoted prefix of its SHA-256.
    public static func etag(for document: String) -> String {
        "\"" + String(SecretToken.hash(document).prefix(20)) + "\""
    }
}
