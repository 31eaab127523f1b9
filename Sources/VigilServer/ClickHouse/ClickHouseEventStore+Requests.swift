import Foundation

/// The requests page's figures read from the events on ClickHouse through `apm_request`, one
/// narrow row per `network` event (``ClickHouseSchema/requestTable(database:reading:)``), instead of
/// unfolding the wide event rows' contribution arrays: the counts, totals and `network.total`
/// buckets are the rows' own contributions, so the figures equal the `ARRAY JOIN` of the
/// events' (and SQLite's and PostgreSQL's).
///
/// Cost: a scan of the project's request rows within the filter's partitions and time range,
/// reading a few scalar columns per request.
extension ClickHouseEventStore {
    /// The metrics the request rows hold.
    static let requestMetrics: Set<String> = Set(["network", "network.errors"] + ClickHouseSchema.requestPhases.map { "network.\($0)" })

    /// Sums of `metrics` per template (and version and day, as `filter` groups), or nil when
    /// `metrics` holds one the request rows do not.
    func requestSums(projectID: Int64, metrics: [String], filter: RollupFilter) throws -> [RollupRow]? {
        guard !metrics.isEmpty, metrics.allSatisfy(Self.requestMetrics.contains) else { return nil }
        var groups = ["template"]
        if filter.byVersion { groups.append("app_version") }
        if filter.byDay { groups.append("day") }
        let keys = groups.joined(separator: ", ")
        let phases = ClickHouseSchema.requestPhases.map { "sum(\($0)_count), sum(\($0)_ms)" }.joined(separator: ", ")
        let rows = try cluster.entry.rows("""
            SELECT \(keys), count(), sum(total_ms), sum(failed), \(phases) FROM \(cluster.rollupTable("apm_request"))
            WHERE project_id = \(projectID)\(filterClause(filter, dimension: "template"))
            GROUP BY \(keys)
            """)
        let wanted = Set(metrics)
        let width = groups.count + 3 + 2 * ClickHouseSchema.requestPhases.count
        var sums: [RollupRow] = []
        for row in rows {
            guard row.count == width else { throw ClickHouseError.unexpectedAnswer("\(row.count) fields in a request row") }
            var field = 1
            var version: String?
            var day: Int64?
            if filter.byVersion { version = row[field] ?? ""; field += 1 }
            if filter.byDay { day = row[field].flatMap { Int64($0) }; field += 1 }
            func count(_ at: Int) -> Int64 { row[at].flatMap { Int64($0) } ?? 0 }
            func total(_ at: Int) -> Double { row[at].flatMap { Double($0) } ?? 0 }
            var figures: [(String, Int64, Double)] = [("network", count(field), total(field + 1)), ("network.errors", count(field + 2), 0)]
            for (offset, phase) in ClickHouseSchema.requestPhases.enumerated() {
                figures.append(("network.\(phase)", count(field + 3 + 2 * offset), total(field + 4 + 2 * offset)))
            }
            // A metric no request of the group added has no roll-up row either.
            for (metric, n, sum) in figures where n > 0 && wanted.contains(metric) {
                sums.append(RollupRow(metric: metric, dimension: row[0] ?? "", appVersion: version, day: day, count: n, total: sum))
            }
        }
        return sums
    }

    /// `network.total` histograms per template (and version and day, as `filter` groups).
    func requestDistributions(projectID: Int64, filter: RollupFilter) throws -> [RollupDistribution] {
        var groups = ["template"]
        if filter.byVersion { groups.append("app_version") }
        if filter.byDay { groups.append("day") }
        let keys = groups.joined(separator: ", ")
        let rows = try cluster.entry.rows("""
            SELECT \(keys), total_bucket, toInt64(count()) FROM \(cluster.rollupTable("apm_request"))
            WHERE project_id = \(projectID)\(filterClause(filter, dimension: "template"))
            GROUP BY \(keys), total_bucket
            """)
        return try Self.histograms(rows, dimensionField: 0, filter: filter)
    }
}

/// The newest request events themselves, for the breakdown by version and network type
/// (``NetworkBreakdown``): the request rows keep neither the answer's status nor the context's
/// network type, so those are read from the events' payload and context.
extension ClickHouseEventStore {
    /// The newest `limit` `network` events within `filter`'s version, days and
    /// ``RollupFilter/events``, newest first, as the request facts the main database would keep
    /// for them (``RequestFact``), and whether the window held more. An event whose payload
    /// cannot be read as a request (the validator refuses those) is left out.
    ///
    /// Cost: two queries over the sort key `(project_id, type, occurred_at)`. The first reads
    /// only `occurred_at` of the window's request rows, to find the time of the `limit + 1`-th
    /// newest; the second reads the JSON of the rows from that time on, so at most about
    /// `limit` payloads cross the wire and get parsed here, however many requests the window holds.
    func recentRequests(projectID: Int64, filter: RollupFilter, limit: Int) throws -> (facts: [RequestFact], truncated: Bool) {
        let limit = max(1, limit)
        let window = "WHERE project_id = \(projectID) AND type = 'network'\(filterClause(filter))"
        let beyond = try cluster.entry.rows(
            "SELECT occurred_at FROM \(cluster.distributedTable) \(window) ORDER BY occurred_at DESC LIMIT \(limit), 1")
        var since = ""
        if let row = beyond.first {
            guard let time = row.first.flatMap({ $0.flatMap { Int64($0) } }) else {
                throw ClickHouseError.unexpectedAnswer("no time in a request row: \(row)")
            }
            since = " AND occurred_at >= \(time)"
        }
        let columns = ["id", "occurred_at", "app_version", "os_version", "device_model", "page", "duration_ms", "payload_json", "context_json"]
        let rows = try cluster.entry.rows("""
            SELECT \(columns.joined(separator: ", ")) FROM \(cluster.distributedTable) \(window)\(since)
            ORDER BY occurred_at DESC LIMIT \(limit)
            """)
        let facts = try rows.compactMap { row -> RequestFact? in
            guard row.count == columns.count, let id = row[0], let time = row[1].flatMap({ Int64($0) }), let payload = row[7] else {
                throw ClickHouseError.unexpectedAnswer("\(row.count) fields in a request event row")
            }
            // The columns a fact reads; the others stay empty.
            let record = EventRecord(id: id, type: "network", occurredAt: time, appID: "", appVersion: row[2] ?? "", appBuild: "",
                                     os: "", osVersion: row[3] ?? "", deviceModel: row[4] ?? "", page: row[5], sessionID: "",
                                     durationMs: row[6].flatMap { Double($0) }, tagsJSON: "{}", payloadJSON: payload,
                                     imagesJSON: nil, contextJSON: row[8])
            return RequestFact(record, payload: nil)
        }
        return (facts, !beyond.isEmpty)
    }
}
