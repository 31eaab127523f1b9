import Foundation

extension ServerStore {
    /// The columns of `request_facts`, in the order ``requestFactsSelect(_:)`` yields them.
    static let requestFactColumns = [
        "project_id", "event_id", "occurred_at", "app_version", "os_version", "device_model", "page", "network", "template",
        "status", "failed", "duration_ms", "total_ms", "dns_ms", "connect_ms", "tls_ms", "request_ms", "ttfb_ms", "response_ms",
    ]

    /// `SELECT … FROM apm_event` yielding one `request_facts` row per `network` event: the
    /// payload's template, status, error flag and phase timings and the context's network type
    /// read once, by the database's JSON functions, so that the views that narrow requests by
    /// OS version, device model or page read a narrow table of plain columns instead of
    /// parsing each payload again. The caller adds the `WHERE` clause, which must keep to
    /// `network` events.
    ///
    /// On PostgreSQL each JSON column is parsed once per row, into `jsonb` by a lateral
    /// subquery: the `json` type's operators parse the text again for every field read, which
    /// cost about 300 µs of database CPU per stored event at ingest.
    /// `rows` (PostgreSQL only) reads the events from a `VALUES` list named `apm_event` with the
    /// columns the select names, instead of from the table; the caller then adds no `WHERE`.
    static func requestFactsSelect(_ d: SQLDialect, rows: String? = nil) -> String {
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
            source = (rows.map { "(VALUES \($0)) AS apm_event(\(requestFactSources.joined(separator: ", ")))" } ?? "apm_event")
                + " CROSS JOIN LATERAL (SELECT CAST(REPLACE(payload_json, '\\u0000', '\\ufffd') AS jsonb) AS p, "
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

    /// The columns of `apm_event` that ``requestFactsSelect(_:rows:)`` reads, in the order of a
    /// `VALUES` row of ``writeRequestFacts(on:projectID:records:)`` on PostgreSQL.
    static let requestFactSources = ["project_id", "id", "occurred_at", "app_version", "os_version", "device_model", "page",
                                     "duration_ms", "payload_json", "context_json"]

    /// Writes the `request_facts` rows of `records` of `projectID`, all of type `network` and
    /// already stored in `apm_event` by the same transaction.
    ///
    /// Cost: one `INSERT … SELECT` per 200 records, each payload's JSON parsed once by the
    /// database (the ingest-side price of cheap filtered request views). On SQLite each row is
    /// read back by its primary key; the statement names no type on purpose: with
    /// `type = 'network'` as well SQLite's planner prefers the `(project_id, type, occurred_at)`
    /// index to 200 primary-key probes and reads every stored request of the project per
    /// statement. On PostgreSQL the rows are sent again as a `VALUES` list: reading them back
    /// by `id IN (…)` let the planner, whose statistics lag behind a table growing under ingest,
    /// walk the project's events per statement (ingest fell to a fifth).
    static func writeRequestFacts(on connection: any DatabaseConnection, projectID: Int64,
                                  records: some Sequence<EventRecord>) throws {
        let records = Array(records)
        var start = 0
        let columns = requestFactColumns.joined(separator: ", ")
        while start < records.count {
            let chunk = records[start..<min(start + 200, records.count)]
            start += chunk.count
            if connection.dialect == .postgres {
                let row = "(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), "
                    + "CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS DOUBLE PRECISION), CAST(? AS TEXT), CAST(? AS TEXT))"
                var arguments: [SQLValue] = []
                arguments.reserveCapacity(chunk.count * requestFactSources.count)
                for record in chunk {
                    arguments += [.integer(projectID), .text(record.id), .integer(record.occurredAt), .text(record.appVersion),
                                  .text(record.osVersion), .text(record.deviceModel), record.page.map { .text($0) } ?? .null,
                                  record.durationMs.map { .real($0) } ?? .null, .text(record.payloadJSON),
                                  record.contextJSON.map { .text($0) } ?? .null]
                }
                let rows = Array(repeating: row, count: chunk.count).joined(separator: ", ")
                try connection.execute("INSERT INTO request_facts (\(columns)) " + requestFactsSelect(.postgres, rows: rows)
                                       + " ON CONFLICT (project_id, event_id) DO NOTHING", arguments)
            } else {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                try connection.execute("INSERT INTO request_facts (\(columns)) " + requestFactsSelect(.sqlite)
                                       + " WHERE project_id = ? AND id IN (\(marks)) ON CONFLICT (project_id, event_id) DO NOTHING",
                                       [.integer(projectID)] + chunk.map { .text($0.id) })
            }
        }
    }

    /// Deletes the `request_facts` rows of events `ids` of `projectID` (pruned from `apm_event`).
    static func deleteRequestFacts(on connection: any DatabaseConnection, projectID: Int64, ids: [String]) throws {
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + 200, ids.count)]
            start += chunk.count
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            try connection.execute("DELETE FROM request_facts WHERE project_id = ? AND event_id IN (\(marks))",
                                   [.integer(projectID)] + chunk.map { .text($0) })
        }
    }
}
