import Foundation

/// The stored JSON of one event, for views that read what roll-ups do not keep (stacks, task
/// spans).
public struct EventSample: Sendable, Hashable {
    /// Event id.
    public var id: String
    /// When it happened (ms since 1970).
    public var occurredAt: Int64
    /// App version.
    public var appVersion: String
    /// The event's duration column (hang duration, TTID, …), when it has one.
    public var durationMs: Double?
    /// The payload as stored.
    public var payloadJSON: String
    /// The `images` array as stored, when the event has one.
    public var imagesJSON: String?
}

/// Which stored events a picture is drawn from.
public struct EventSampleQuery: Sendable, Hashable {
    /// Event type (`hang`, `frames`, `launch`).
    public var type: String
    /// Only events grouped into this issue.
    public var issueID: Int64?
    /// Only payloads containing one of these texts (a cheap pre-filter; the caller still
    /// decodes); empty: every payload.
    public var payloadContains: [String]
    /// At most this many events, the most recent first (1…5,000).
    public var limit: Int
    /// Only the newest this many events of the type in the filter are looked at (1…100,000),
    /// so that a rare payload costs a bounded scan, not one over every event of the type.
    public var scanLimit: Int

    /// Creates a query.
    public init(type: String, issueID: Int64? = nil, payloadContains: [String] = [], limit: Int = 200, scanLimit: Int = 10_000) {
        self.type = type
        self.scanLimit = scanLimit
        self.issueID = issueID
        self.payloadContains = payloadContains
        self.limit = limit
    }
}

extension ServerStore {
    /// The most recent events matching `query` and `filter` (time range, release, OS version,
    /// device model, page), newest first.
    ///
    /// Cost is bounded whatever the table holds: the `(project_id, type, occurred_at)` index (or
    /// the issue's) yields the newest ``EventSampleQuery/scanLimit`` events of the type in the
    /// filter, and only those are tested for ``EventSampleQuery/payloadContains``.
    public func eventSamples(projectID: Int64, query: EventSampleQuery, filter: DashboardFilter, now: Date) throws -> [EventSample] {
        // Roll-ups name events without a page `(no page)`; the column holds NULL for them.
        var unpaged = filter
        unpaged.page = nil
        let page = filter.page
        let conditions = unpaged.eventConditions(now: now)
        return try database.read { connection in
            let columns = "id, occurred_at, app_version, duration_ms, payload_json, images_json"
            var inner = "SELECT \(columns) FROM apm_event WHERE project_id = ? AND type = ?" + conditions.sql
            var arguments: [SQLValue] = [.integer(projectID), .text(query.type)] + conditions.arguments
            if let issueID = query.issueID { inner += " AND issue_id = ?"; arguments.append(.integer(issueID)) }
            if let page {
                if page == "(no page)" { inner += " AND page IS NULL" } else { inner += " AND page = ?"; arguments.append(.text(page)) }
            }
            inner += " ORDER BY occurred_at DESC LIMIT ?"
            arguments.append(.int(max(1, min(query.scanLimit, 100_000))))
            var sql = "SELECT \(columns) FROM (\(inner)) AS recent"
            if !query.payloadContains.isEmpty {
                // instr/strpos instead of LIKE: no wildcard characters to escape in the needle.
                let test = dialect == .sqlite ? "instr(payload_json, ?) > 0" : "strpos(payload_json, ?) > 0"
                sql += " WHERE " + Array(repeating: test, count: query.payloadContains.count).joined(separator: " OR ")
                arguments += query.payloadContains.map { .text($0) }
            }
            sql += " ORDER BY occurred_at DESC, id LIMIT ?"
            arguments.append(.int(max(1, min(query.limit, 5000))))
            return try connection.query(sql, arguments).map { row in
                EventSample(id: row.string("id") ?? "", occurredAt: row.int64("occurred_at"), appVersion: row.string("app_version") ?? "",
                            durationMs: row["duration_ms"].double, payloadJSON: row.string("payload_json") ?? "{}",
                            imagesJSON: row.string("images_json"))
            }
        }
    }
}
