import Foundation

extension ServerStore {
    /// Rows per multi-row `INSERT`: large enough to amortize the round trip to PostgreSQL,
    /// small enough to stay far below both databases' parameter limits (17 per row).
    static let insertChunk = 100

    /// Stores `records` for `projectID` in one transaction; a record whose id the project
    /// already has is skipped. Returns the ids that were newly stored.
    ///
    /// Cost: one multi-row statement per 100 records.
    @discardableResult
    public func insertEvents(projectID: Int64, _ records: [EventRecord], receivedAt: Date = Date()) throws -> Set<String> {
        guard !records.isEmpty else { return [] }
        let received = ServerStore.millis(receivedAt)
        return try database.write { connection in
            try Self.insertEvents(on: connection, projectID: projectID, records, received: received)
        }
    }

    /// Bulk-loads `records`, all new to the project, in one transaction, as waiting (state 0) or
    /// as processed without results (state 1, no issue, no roll-ups): for imports and for
    /// benchmarks that need a large table. An id the project already has fails the whole call.
    /// Returns the rows stored.
    ///
    /// Cost: one `COPY` on PostgreSQL, multi-row `INSERT`s of 100 on SQLite, and the counts'
    /// upsert; no duplicate check.
    @discardableResult
    public func bulkLoadEvents(projectID: Int64, _ records: [EventRecord], receivedAt: Date, processed: Bool) throws -> Int {
        guard !records.isEmpty else { return 0 }
        let received = ServerStore.millis(receivedAt)
        let state = processed ? 1 : 0
        return try database.write { connection in
            var arguments: [SQLValue] = []
            arguments.reserveCapacity(records.count * 20)
            for record in records {
                Self.appendArguments(of: record, projectID: projectID, received: received, to: &arguments)
                arguments.append(.int(state))
                arguments.append(processed ? .integer(received) : .null)
            }
            let stored = try connection.insertRows(into: "apm_event", columns: Self.bulkColumns, values: arguments)
            try Self.writeRequestFacts(on: connection, projectID: projectID, facts: Self.requestFacts(records))
            var counts = EventCountDelta()
            counts.add(projectID: projectID, state: state, stored)
            try counts.write(on: connection)
            return stored
        }
    }

    /// The columns of ``bulkLoadEvents(projectID:_:receivedAt:processed:)``, in the order of its values.
    private static let bulkColumns = recordColumns + ["state", "processed_at"]

    /// The columns ``appendArguments(of:projectID:received:to:)`` fills, in its order.
    static let recordColumns = [
        "project_id", "id", "type", "received_at", "occurred_at", "app_id", "app_version", "app_build", "os", "os_version",
        "device_model", "page", "session_id", "duration_ms", "tags_json", "payload_json", "images_json", "context_json",
        "user_key",
    ] + frameCountColumns

    /// A frame window's counts (``FrameCounts``), NULL on other rows.
    static let frameCountColumns = ["frames_rendered", "frames_dropped", "frames_slow", "frames_severe", "frames_frozen"]

    static func insertEvents(on connection: any DatabaseConnection, projectID: Int64, _ records: [EventRecord],
                             received: Int64) throws -> Set<String> {
        var inserted = Set<String>()
        var start = 0
        while start < records.count {
            let chunk = records[start..<min(start + insertChunk, records.count)]
            start += chunk.count
            let row = "(" + Array(repeating: "?", count: recordColumns.count).joined(separator: ", ") + ")"
            let sql = """
                INSERT INTO apm_event (\(recordColumns.joined(separator: ", ")))
                VALUES \(Array(repeating: row, count: chunk.count).joined(separator: ", "))
                ON CONFLICT (project_id, id) DO NOTHING
                RETURNING id
                """
            var arguments: [SQLValue] = []
            arguments.reserveCapacity(chunk.count * recordColumns.count)
            for record in chunk {
                appendArguments(of: record, projectID: projectID, received: received, to: &arguments)
            }
            var stored = Set<String>()
            for row in try connection.query(sql, arguments) {
                if let id = row[0].string { stored.insert(id) }
            }
            try writeRequestFacts(on: connection, projectID: projectID, facts: requestFacts(chunk.lazy.filter { stored.contains($0.id) }))
            inserted.formUnion(stored)
        }
        var counts = EventCountDelta()
        counts.add(projectID: projectID, state: 0, inserted.count)
        try counts.write(on: connection)
        return inserted
    }

    /// Appends the parameters of `record`'s row, in the order of ``recordColumns``: project_id,
    /// id, type, received_at … context_json, user_key, then a frame window's counts.
    static func appendArguments(of record: EventRecord, projectID: Int64, received: Int64, to arguments: inout [SQLValue]) {
        arguments.append(.integer(projectID))
        arguments.append(.text(record.id))
        arguments.append(.text(record.type))
        arguments.append(.integer(received))
        arguments.append(.integer(record.occurredAt))
        arguments.append(.text(record.appID))
        arguments.append(.text(record.appVersion))
        arguments.append(.text(record.appBuild))
        arguments.append(.text(record.os))
        arguments.append(.text(record.osVersion))
        arguments.append(.text(record.deviceModel))
        arguments.append(.optional(record.page))
        arguments.append(.text(record.sessionID))
        arguments.append(.optional(record.durationMs))
        arguments.append(.text(record.tagsJSON))
        arguments.append(.text(record.payloadJSON))
        arguments.append(.optional(record.imagesJSON))
        arguments.append(.optional(record.contextJSON))
        arguments.append(.optional(record.userKey))
        if let counts = FrameCounts.of(record) {
            for value in counts.values { arguments.append(.integer(value)) }
        } else {
            for _ in frameCountColumns { arguments.append(.null) }
        }
    }

    /// Counts of a project's (or every project's) stored events by state: waiting, processed,
    /// waiting for re-processing.
    ///
    /// Cost: a few rows of `event_counts` (``EventCountDelta``), whatever the number of events.
    public func eventCounts(projectID: Int64? = nil) throws -> (pending: Int, processed: Int, reprocess: Int) {
        try database.read { connection in
            let rows: [SQLRow]
            if let projectID {
                rows = try connection.query("SELECT state, CAST(SUM(n) AS BIGINT) AS n FROM event_counts WHERE project_id = ? GROUP BY state",
                                            [.integer(projectID)])
            } else {
                rows = try connection.query("SELECT state, CAST(SUM(n) AS BIGINT) AS n FROM event_counts GROUP BY state")
            }
            return Self.countsByState(rows)
        }
    }

    /// ``eventCounts(projectID:)`` by counting `apm_event` itself: a scan, for checking the kept counts.
    func scannedEventCounts(projectID: Int64? = nil) throws -> (pending: Int, processed: Int, reprocess: Int) {
        try database.read { connection in
            let rows: [SQLRow]
            if let projectID {
                rows = try connection.query("SELECT state, COUNT(*) AS n FROM apm_event WHERE project_id = ? GROUP BY state",
                                            [.integer(projectID)])
            } else {
                rows = try connection.query("SELECT state, COUNT(*) AS n FROM apm_event GROUP BY state")
            }
            return Self.countsByState(rows)
        }
    }

    private static func countsByState(_ rows: [SQLRow]) -> (pending: Int, processed: Int, reprocess: Int) {
        var result = (pending: 0, processed: 0, reprocess: 0)
        for row in rows {
            switch row.int("state") {
            case 0: result.pending = row.int("n")
            case 1: result.processed = row.int("n")
            default: result.reprocess += row.int("n")
            }
        }
        return result
    }

    /// One stored event's record and state, or nil.
    public func storedEvent(projectID: Int64, id: String) throws -> StoredEvent? {
        try database.read { connection in
            try connection.first("SELECT * FROM apm_event WHERE project_id = ? AND id = ?", [.integer(projectID), .text(id)])
                .map(StoredEvent.init(row:))
        }
    }
}

/// An event as read back from `apm_event`, with what processing added.
public struct StoredEvent: Sendable {
    /// The columns as inserted.
    public var record: EventRecord
    /// The owning project.
    public var projectID: Int64
    /// When the server stored it (ms since 1970).
    public var receivedAt: Int64
    /// 0 waiting, 1 processed, 2 waiting for re-processing.
    public var state: Int
    /// When processing finished (ms since 1970).
    public var processedAt: Int64?
    /// The issue fingerprint, for crashes and hangs.
    public var fingerprint: String?
    /// The issue it was grouped into.
    public var issueID: Int64?
    /// The resolved stack (JSON array of frames), for crashes and hangs.
    public var framesJSON: String?

    init(row: SQLRow) {
        record = EventRecord(id: row.string("id") ?? "", type: row.string("type") ?? "", occurredAt: row.int64("occurred_at"),
                             appID: row.string("app_id") ?? "", appVersion: row.string("app_version") ?? "",
                             appBuild: row.string("app_build") ?? "", os: row.string("os") ?? "",
                             osVersion: row.string("os_version") ?? "", deviceModel: row.string("device_model") ?? "",
                             page: row.string("page"), sessionID: row.string("session_id") ?? "",
                             durationMs: row["duration_ms"].double, tagsJSON: row.string("tags_json") ?? "{}",
                             payloadJSON: row.string("payload_json") ?? "{}", imagesJSON: row.string("images_json"),
                             contextJSON: row.string("context_json"))
        projectID = row.int64("project_id")
        receivedAt = row.int64("received_at")
        state = row.int("state")
        processedAt = row["processed_at"].int64
        fingerprint = row.string("fingerprint")
        issueID = row["issue_id"].int64
        framesJSON = row.string("frames_json")
    }
}
