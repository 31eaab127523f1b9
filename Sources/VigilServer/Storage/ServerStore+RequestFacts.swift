import Foundation

extension ServerStore {
    /// The columns of `request_facts`, in the order ``requestFactsSelect(_:)`` yields them.
    static let requestFactColumns = [
        "project_id", "event_id", "occurred_at", "app_version", "os_version", "device_model", "page", "network", "template",
        "status", "failed", "duration_ms", "total_ms", "dns_ms", "connect_ms", "tls_ms", "request_ms", "ttfb_ms", "response_ms",
    ]

    /// `SELECT … FROM apm_event` yielding one `request_facts` row per stored `network` event:
    /// the payload's template, status, error flag and phase timings and the context's network
    /// type read by the database's JSON functions. The schema-9 fill uses it for the events
    /// stored before the table existed; at ingest the same values come from the decoded
    /// payloads (``RequestFact``). The caller adds the `WHERE` clause, which must keep to
    /// `network` events.
    ///
    /// On PostgreSQL each JSON column is parsed once per row, into `jsonb` by a lateral
    /// subquery: the `json` type's operators parse the text again for every field read, which
    /// cost about 300 µs of database CPU per stored event.
    static func requestFactsSelect(_ d: SQLDialect) -> String {
        let payload: (_ path: [String]) -> String
        let context: (_ path: [String]) -> String
        let source: String
        switch d {
        case .sqlite:
            payload = { d.jsonValue("payload_json", $0) }
            context = { d.jsonValue("context_json", $0) }
            source = "apm_event"
        case .postgres:
            payload = { "(facts_json.p #>> '{\($0.joined(separator: ","))}')" }
            context = { "(facts_json.c #>> '{\($0.joined(separator: ","))}')" }
            // OFFSET 0 keeps the subquery from being flattened, which would copy each cast
            // into every field read. `jsonb` refuses the escape `\u0000` (the stored text keeps
            // it): replaced by U+FFFD for the facts, the same length, so the escapes around it
            // stay as they were and an odd payload cannot fail the ingest transaction.
            source = "apm_event CROSS JOIN LATERAL (SELECT CAST(REPLACE(payload_json, '\\u0000', '\\ufffd') AS jsonb) AS p, "
                + "CAST(REPLACE(context_json, '\\u0000', '\\ufffd') AS jsonb) AS c OFFSET 0) facts_json"
        }
        func number(_ path: [String]) -> String { "CAST(\(payload(path)) AS DOUBLE PRECISION)" }
        let phases = ["dns", "connect", "tls", "request", "ttfb", "response"].map { number(["timings", $0]) }
        let failed = "CASE WHEN \(payload(["error"])) IS NOT NULL "
            + "OR COALESCE(\(number(["status"])), 0) >= 500 THEN 1 ELSE 0 END"
        let values = [
            "project_id", "id", "occurred_at", "app_version", "os_version", "device_model", "page",
            "COALESCE(\(context(["network"])), 'unknown')",
            "\(payload(["method"])) || ' ' || \(payload(["urlTemplate"]))",
            number(["status"]), failed, "duration_ms", number(["timings", "total"]),
        ] + phases
        return "SELECT \(values.joined(separator: ", ")) FROM \(source)"
    }

    /// Writes `facts`, rows of `projectID`'s events already stored in `apm_event` by the same
    /// transaction, each new to the table (the caller writes the facts of the events it newly
    /// stored).
    ///
    /// Cost: the values come from the payloads the server decoded at ingest, so the database
    /// parses no JSON and receives no payload; the rows go in by `(occurred_at, id)` — the
    /// table's key, so they land next to each other — in one `COPY` on PostgreSQL and multi-row
    /// `INSERT`s of 100 on SQLite, like the events themselves.
    static func writeRequestFacts(on connection: any DatabaseConnection, projectID: Int64, facts: [RequestFact]) throws {
        guard !facts.isEmpty else { return }
        let ordered = facts.sorted { ($0.occurredAt, $0.eventID) < ($1.occurredAt, $1.eventID) }
        var values: [SQLValue] = []
        values.reserveCapacity(ordered.count * requestFactColumns.count)
        for fact in ordered { fact.append(projectID: projectID, dialect: connection.dialect, to: &values) }
        try connection.insertRows(into: "request_facts", columns: requestFactColumns, values: values)
    }

    /// The facts of the `network` events among `records`, read from their stored JSON.
    static func requestFacts(_ records: some Sequence<EventRecord>) -> [RequestFact] {
        records.compactMap { RequestFact($0, payload: nil) }
    }

    /// Deletes the `request_facts` rows of `projectID`'s events `events` (id and time; pruned
    /// from `apm_event`): a range of the table's key `(project_id, occurred_at, event_id)` per
    /// 200 events, narrowed to their ids.
    static func deleteRequestFacts(on connection: any DatabaseConnection, projectID: Int64,
                                   events: [(id: String, occurredAt: Int64)]) throws {
        let sorted = events.sorted { ($0.occurredAt, $0.id) < ($1.occurredAt, $1.id) }
        var start = 0
        while start < sorted.count {
            let chunk = sorted[start..<min(start + 200, sorted.count)]
            start += chunk.count
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            try connection.execute("""
                DELETE FROM request_facts WHERE project_id = ? AND occurred_at >= ? AND occurred_at <= ? AND event_id IN (\(marks))
                """, [.integer(projectID), .integer(chunk.first?.occurredAt ?? 0), .integer(chunk.last?.occurredAt ?? 0)]
                    + chunk.map { .text($0.id) })
        }
    }
}
