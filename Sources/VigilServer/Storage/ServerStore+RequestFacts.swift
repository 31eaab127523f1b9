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
    static func requestFactsSelect(_ d: SQLDialect) -> String {
        let phases = ["dns", "connect", "tls", "request", "ttfb", "response"].map { d.jsonNumber("payload_json", ["timings", $0]) }
        let failed = "CASE WHEN \(d.jsonValue("payload_json", ["error"])) IS NOT NULL "
            + "OR COALESCE(\(d.jsonNumber("payload_json", ["status"])), 0) >= 500 THEN 1 ELSE 0 END"
        let values = [
            "project_id", "id", "occurred_at", "app_version", "os_version", "device_model", "page",
            "COALESCE(\(d.jsonValue("context_json", ["network"])), 'unknown')",
            "\(d.jsonValue("payload_json", ["method"])) || ' ' || \(d.jsonValue("payload_json", ["urlTemplate"]))",
            d.jsonNumber("payload_json", ["status"]), failed, "duration_ms", d.jsonNumber("payload_json", ["timings", "total"]),
        ] + phases
        return "SELECT \(values.joined(separator: ", ")) FROM apm_event"
    }

    /// Writes the `request_facts` rows of the events `ids` of `projectID`, all of type
    /// `network` and already stored in `apm_event` by the same transaction.
    ///
    /// Cost: one `INSERT … SELECT` per 200 ids, each row read back by its primary key and its
    /// JSON parsed once by the database (the ingest-side price of cheap filtered request views).
    /// The statement names no type on purpose: with `type = 'network'` as well SQLite's planner
    /// prefers the `(project_id, type, occurred_at)` index to 200 primary-key probes and reads
    /// every stored request of the project per statement.
    static func writeRequestFacts(on connection: any DatabaseConnection, projectID: Int64, ids: some Sequence<String>) throws {
        let ids = Array(ids)
        var start = 0
        let sql = "INSERT INTO request_facts (\(requestFactColumns.joined(separator: ", "))) "
            + requestFactsSelect(connection.dialect) + " WHERE project_id = ? AND id IN "
        while start < ids.count {
            let chunk = ids[start..<min(start + 200, ids.count)]
            start += chunk.count
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            try connection.execute(sql + "(\(marks)) ON CONFLICT (project_id, event_id) DO NOTHING",
                                   [.integer(projectID)] + chunk.map { .text($0) })
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
