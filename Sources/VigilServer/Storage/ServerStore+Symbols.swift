import Foundation

/// An uploaded debug file slice, as listed on the symbols page.
public struct SymbolFileInfo: Sendable, Hashable, Codable {
    /// Mach-O UUID or ELF build id.
    public var debugID: String
    /// Architecture, e.g. `arm64`.
    public var arch: String
    /// What it is (`crash`/`hang`, or a launch kind).
    public var kind: String
    /// Display name.
    public var name: String
    /// Size of the SymCache, in bytes.
    public var size: Int64
    /// When it was uploaded.
    public var uploadedAt: Date

    enum CodingKeys: String, CodingKey {
        case debugID = "debugId", arch, kind, name, size, uploadedAt
    }
}

/// An image that events needed symbols for and no upload provided.
public struct MissingSymbolInfo: Sendable, Hashable, Codable {
    /// Mach-O UUID or ELF build id.
    public var debugID: String
    /// Architecture, e.g. `arm64`.
    public var arch: String
    /// The image's file name.
    public var imageName: String
    /// Events that needed it.
    public var events: Int64
    /// Latest occurrence.
    public var lastSeen: Date

    enum CodingKeys: String, CodingKey {
        case debugID = "debugId", arch, imageName, events, lastSeen
    }
}

extension ServerStore {
    /// Stores `slices` for the project (replacing an earlier upload of the same id and arch),
    /// and queues every processed event that lacked them for re-processing. Returns how many
    /// events were queued.
    @discardableResult
    public func storeSymbols(projectID: Int64, _ slices: [SymbolSlice], now: Date = Date()) throws -> Int {
        try database.write { connection in
            var requeued = 0
            for slice in slices.sorted(by: { ($0.debugID, $0.arch) < ($1.debugID, $1.arch) }) {
                try connection.execute("""
                    INSERT INTO symbol_files (project_id, debug_id, arch, kind, name, file_size, uploaded_at, symcache)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (project_id, debug_id, arch) DO UPDATE SET kind = excluded.kind, name = excluded.name,
                        file_size = excluded.file_size, uploaded_at = excluded.uploaded_at, symcache = excluded.symcache
                    """, [.integer(projectID), .text(slice.debugID), .text(slice.arch), .text(slice.kind), .text(slice.name),
                          .int(slice.symcache.count), .integer(ServerStore.millis(now)), .blob(slice.symcache)])
                requeued += try connection.execute("""
                    UPDATE apm_event SET state = 2 WHERE project_id = ? AND state = 1 AND id IN
                        (SELECT event_id FROM event_missing_symbols WHERE project_id = ? AND debug_id = ?)
                    """, [.integer(projectID), .integer(projectID), .text(slice.debugID)])
                try connection.execute("DELETE FROM event_missing_symbols WHERE project_id = ? AND debug_id = ?",
                                       [.integer(projectID), .text(slice.debugID)])
                try connection.execute("DELETE FROM missing_symbols WHERE project_id = ? AND debug_id = ?",
                                       [.integer(projectID), .text(slice.debugID)])
            }
            var counts = EventCountDelta()
            counts.move(projectID: projectID, from: 1, to: 2, requeued)
            try counts.write(on: connection)
            return requeued
        }
    }

    /// The SymCache for `debugID` (preferring `arch` when several slices share the id).
    static func symCache(on connection: any DatabaseConnection, projectID: Int64, debugID: String, arch: String) throws -> Data? {
        try connection.first("""
            SELECT symcache FROM symbol_files WHERE project_id = ? AND debug_id = ?
            ORDER BY CASE WHEN arch = ? THEN 0 ELSE 1 END LIMIT 1
            """, [.integer(projectID), .text(DebugIDSpelling.normalize(debugID)), .text(arch)])?["symcache"].data
    }

    /// The project's uploaded slices, newest first.
    public func symbolFiles(projectID: Int64) throws -> [SymbolFileInfo] {
        try database.read { connection in
            try connection.query("""
                SELECT debug_id, arch, kind, name, file_size, uploaded_at FROM symbol_files WHERE project_id = ?
                ORDER BY uploaded_at DESC, debug_id
                """, [.integer(projectID)]).map { row in
                SymbolFileInfo(debugID: row.string("debug_id") ?? "", arch: row.string("arch") ?? "", kind: row.string("kind") ?? "",
                               name: row.string("name") ?? "", size: row.int64("file_size"),
                               uploadedAt: ServerStore.date(row.int64("uploaded_at")))
            }
        }
    }

    /// Images the project's events needed symbols for, most needed first.
    public func missingSymbols(projectID: Int64) throws -> [MissingSymbolInfo] {
        try database.read { connection in
            try connection.query("""
                SELECT debug_id, arch, image_name, event_count, last_seen FROM missing_symbols WHERE project_id = ?
                ORDER BY event_count DESC, debug_id
                """, [.integer(projectID)]).map { row in
                MissingSymbolInfo(debugID: row.string("debug_id") ?? "", arch: row.string("arch") ?? "",
                                  imageName: row.string("image_name") ?? "", events: row.int64("event_count"),
                                  lastSeen: ServerStore.date(row.int64("last_seen")))
            }
        }
    }
}
