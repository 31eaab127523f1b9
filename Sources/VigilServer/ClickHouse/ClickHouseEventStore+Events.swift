import Foundation

/// The roll-ups computed from the events themselves on ClickHouse, for a filter neither the
/// roll-up nor the facet roll-up tables are kept by (``RollupFilter/events`` with two or three
/// of OS version, device model and an event's page, or the partial days at the ends of an
/// exact time range, ``FacetSplit``). Each event row carries its contributions as parallel arrays
/// (``ClickHouseSchema``), so a figure is a `GROUP BY` over an `ARRAY JOIN` of them, kept by
/// the sort key to the project and the event types that carry the metric, and equals what the
/// main database computes from its events.
///
/// Cost: a scan of the project's rows of those types within the filter's partitions (for the
/// requests page, of its narrow request rows instead: `ClickHouseEventStore+Requests.swift`).
extension ClickHouseEventStore {
    /// The event types whose rows can carry `metric`; nil: any type.
    static func types(of metric: String) -> [String]? {
        if metric == "events" { return nil }
        if metric == ReleaseMetric.hangs || metric.hasPrefix("hang") { return ["hang"] }
        if metric == ReleaseMetric.ttid || metric.hasPrefix("launch") { return ["launch"] }
        if metric.hasPrefix("release.") { return ["session"] }
        for type in ["crash", "frames", "network", "span", "resource", "log"] where metric == type || metric.hasPrefix(type + ".") {
            return [type]
        }
        return nil
    }

    fileprivate func typeClause(_ metrics: [String]) -> String {
        var types = Set<String>()
        for metric in metrics {
            guard let these = Self.types(of: metric) else { return "" }
            types.formUnion(these)
        }
        return " AND type IN (\(types.sorted().map(ClickHouseNode.literal).joined(separator: ", ")))"
    }

    /// The filter's version, days and dimension as SQL conditions (the same as the roll-up
    /// tables' `WHERE`). Bounds on `occurred_at` beside those on `day` let ClickHouse skip
    /// partitions and sort-key ranges. `dimension` names the row's own dimension column (the
    /// ARRAY JOIN alias, or `type` for the per-type event counts).
    func filterClause(_ filter: RollupFilter, dimension: String = "dimension") -> String {
        var clause = ""
        if let version = filter.version { clause += " AND app_version = \(ClickHouseNode.literal(version))" }
        if let since = filter.sinceDay { clause += " AND day >= \(since) AND occurred_at >= \(since * 86_400_000)" }
        if let until = filter.untilDay { clause += " AND day <= \(until) AND occurred_at < \((until + 1) * 86_400_000)" }
        if let value = filter.dimension { clause += " AND \(dimension) = \(ClickHouseNode.literal(value))" }
        if let events = filter.events {
            if let start = events.start { clause += " AND occurred_at >= \(start)" }
            if let end = events.end { clause += " AND occurred_at < \(end)" }
            if let value = events.osVersion { clause += " AND os_version = \(ClickHouseNode.literal(value))" }
            if let value = events.deviceModel { clause += " AND device_model = \(ClickHouseNode.literal(value))" }
            // `page` is Nullable: a NULL page matches no value, as in SQL on the main database.
            if let value = events.page { clause += " AND page = \(ClickHouseNode.literal(value))" }
        }
        return clause
    }

    func eventSums(projectID: Int64, metrics: [String], filter: RollupFilter) throws -> [RollupRow] {
        guard !metrics.isEmpty else { return [] }
        if let requests = try requestSums(projectID: projectID, metrics: metrics, filter: filter) { return requests }
        // Every row adds exactly one `events` sum (dimension: its type, count 1, total 0): counted
        // without unfolding the arrays, the overview reads three small columns.
        if metrics.contains("events") {
            let others = metrics.filter { $0 != "events" }
            return try eventCounts(projectID: projectID, filter: filter)
                + (others.isEmpty ? [] : eventSums(projectID: projectID, metrics: others, filter: filter))
        }
        let list = Self.groups(filter).joined(separator: ", ")
        let rows = try cluster.entry.rows("""
            SELECT \(list), sum(c), sum(t) FROM \(cluster.distributedTable)
            ARRAY JOIN sum_metric AS metric, sum_dimension AS dimension, sum_count AS c, sum_total AS t
            WHERE project_id = \(projectID)\(typeClause(metrics))\(filterClause(filter))
              AND metric IN (\(metrics.map(ClickHouseNode.literal).joined(separator: ", ")))
            GROUP BY \(list)
            """)
        return try Self.sums(rows, filter: filter)
    }

    fileprivate func eventCounts(projectID: Int64, filter: RollupFilter) throws -> [RollupRow] {
        var groups = ["type"]
        if filter.byVersion { groups.append("app_version") }
        if filter.byDay { groups.append("day") }
        let list = groups.joined(separator: ", ")
        return try cluster.entry.rows("""
            SELECT \(list), count() FROM \(cluster.distributedTable)
            WHERE project_id = \(projectID) AND type NOT IN \(ClickHouseSchema.issueLinkTypeList)\(filterClause(filter, dimension: "type")) GROUP BY \(list)
            """).map { row in
            var index = 1
            var version: String?
            var day: Int64?
            if filter.byVersion { version = row[index] ?? ""; index += 1 }
            if filter.byDay { day = row[index].flatMap { Int64($0) }; index += 1 }
            return RollupRow(metric: "events", dimension: row[0] ?? "", appVersion: version, day: day,
                             count: row[index].flatMap { Int64($0) } ?? 0, total: 0)
        }
    }

    func eventDistributions(projectID: Int64, metric: String, filter: RollupFilter) throws -> [RollupDistribution] {
        if metric == "network.total" { return try requestDistributions(projectID: projectID, filter: filter) }
        var groups = ["dimension"]
        if filter.byVersion { groups.append("app_version") }
        if filter.byDay { groups.append("day") }
        let list = groups.joined(separator: ", ")
        let rows = try cluster.entry.rows("""
            SELECT \(list), bucket, count() FROM \(cluster.distributedTable)
            ARRAY JOIN obs_metric AS metric, obs_dimension AS dimension, obs_bucket AS bucket
            WHERE project_id = \(projectID)\(typeClause([metric]))\(filterClause(filter)) AND metric = \(ClickHouseNode.literal(metric))
            GROUP BY \(list), bucket
            """)
        return try Self.histograms(rows, dimensionField: 0, filter: filter)
    }

    func eventSketchRegisters(projectID: Int64, metrics: [String], filter: RollupFilter) throws -> [SketchRegisterRow] {
        guard !metrics.isEmpty else { return [] }
        let groups = filter.byDay ? "app_version, dimension, metric, day, sk_register" : "app_version, dimension, metric, sk_register"
        var dayless = filter
        dayless.dimension = nil
        return try cluster.entry.rows("""
            SELECT \(groups), max(sk_rank) FROM \(cluster.distributedTable)
            ARRAY JOIN sketch_metric AS metric, sketch_dimension AS dimension, sketch_register AS sk_register, sketch_rank AS sk_rank
            WHERE project_id = \(projectID) AND type = 'session'\(filterClause(dayless))
              AND metric IN (\(metrics.map(ClickHouseNode.literal).joined(separator: ", ")))
            GROUP BY \(groups)
            """).map { row in
            let rank = filter.byDay ? 5 : 4
            return SketchRegisterRow(appVersion: row[0] ?? "", dimension: row[1] ?? "", metric: row[2] ?? "",
                                     day: filter.byDay ? row[3].flatMap { Int64($0) } ?? 0 : nil,
                                     register: row[rank - 1].flatMap { Int($0) } ?? 0, rank: row[rank].flatMap { UInt8($0) } ?? 0)
        }
    }
}
