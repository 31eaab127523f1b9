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
