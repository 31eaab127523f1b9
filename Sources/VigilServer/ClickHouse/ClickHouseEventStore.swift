import Foundation

/// The roll-ups on ClickHouse: the same ``RollupSource`` answers as the main database's roll-up
/// tables, read from the roll-up tables the shards' materialized views fill at insert
/// (``ClickHouseSchema/rollups(database:reading:)``) through their `Distributed` tables.
///
/// A read never assumes that `SummingMergeTree`/`AggregatingMergeTree` merges have run: it
/// groups and re-aggregates (`sum`, `maxMerge`) whatever rows the parts hold. Every filter of
/// ``RollupFilter`` but ``RollupFilter/events`` (version, day range, dimension) is a prefix or a column of the tables'
/// sort key `(project_id, metric, app_version, day, dimension…)`, so a read touches only its
/// project's granules of the metrics asked for. Histograms come back as (bucket, count) and are
/// read into the same ``LogHistogram``, so percentiles equal SQLite's and PostgreSQL's exactly;
/// release-health sketches are the same HyperLogLog registers (max rank per register). A filter
/// with ``RollupFilter/events`` on one of OS version, device model or an event's page is
/// answered from the facet roll-ups for its whole days and from the events for the partial days
/// at the ends of its exact range (`ClickHouseEventStore+Facets.swift`); one with two or three
/// of them, and the release-health sketches under any of them, from the events
/// (`ClickHouseEventStore+Events.swift`).
///
/// Threading: safe to share. Cost: one HTTP query per call (up to three under a facet filter
/// with partial days); the roll-up rows read grow with projects × metrics × versions × days ×
/// dimensions (× buckets or registers, × facet values), not with events.
public struct ClickHouseEventStore: RollupSource {
    /// The cluster read from.
    public let cluster: ClickHouseCluster

    /// Reads over `cluster`.
    public init(cluster: ClickHouseCluster) { self.cluster = cluster }

    /// Every event row is there with its columns: OS, device, page and exact time apply (one
    /// of the three from the facet roll-ups and the partial days' events, several from the
    /// events), the rest from the roll-up tables.
    public var filtersEvents: Bool { true }

    /// The filter's version, days and dimension as SQL conditions on a roll-up table (the
    /// facet roll-ups' too).
    func rollupClause(_ filter: RollupFilter) -> String {
        var clause = ""
        if let version = filter.version { clause += " AND app_version = \(ClickHouseNode.literal(version))" }
        if let since = filter.sinceDay { clause += " AND day >= \(since)" }
        if let until = filter.untilDay { clause += " AND day <= \(until)" }
        if let value = filter.dimension { clause += " AND dimension = \(ClickHouseNode.literal(value))" }
        return clause
    }

    private func list(_ values: [String]) -> String { values.map(ClickHouseNode.literal).joined(separator: ", ") }

    /// `metric, dimension[, app_version][, day]` as the filter groups them.
    static func groups(_ filter: RollupFilter) -> [String] {
        var groups = ["metric", "dimension"]
        if filter.byVersion { groups.append("app_version") }
        if filter.byDay { groups.append("day") }
        return groups
    }

    public func rollupSums(projectID: Int64, metrics: [String], filter: RollupFilter) throws -> [RollupRow] {
        guard !metrics.isEmpty else { return [] }
        if filter.events != nil {
            if let split = FacetSplit(filter) { return try facetSums(projectID: projectID, metrics: metrics, filter: filter, split: split) }
            return try eventSums(projectID: projectID, metrics: metrics, filter: filter)
        }
        let groups = Self.groups(filter)
        let keys = groups.joined(separator: ", ")
        let rows = try cluster.entry.rows("""
            SELECT \(keys), sum(event_count), sum(total) FROM \(cluster.rollupTable("apm_rollup_sums"))
            WHERE project_id = \(projectID) AND metric IN (\(list(metrics)))\(rollupClause(filter))
            GROUP BY \(keys)
            """)
        return try Self.sums(rows, filter: filter)
    }

    /// Sum rows (`metric, dimension[, app_version][, day], count, total`, the bracketed keys as
    /// `filter` groups by them, the order of ``groups(_:)``) as roll-up rows. Throws on a row with
    /// another number of fields.
    static func sums(_ rows: [[String?]], filter: RollupFilter) throws -> [RollupRow] {
        let width = groups(filter).count + 2
        return try rows.map { row in
            guard row.count == width else { throw ClickHouseError.unexpectedAnswer("\(row.count) fields in a roll-up row") }
            var index = 2
            var version: String?
            var day: Int64?
            if filter.byVersion { version = row[index] ?? ""; index += 1 }
            if filter.byDay { day = row[index].flatMap { Int64($0) }; index += 1 }
            return RollupRow(metric: row[0] ?? "", dimension: row[1] ?? "", appVersion: version, day: day,
                             count: row[index].flatMap { Int64($0) } ?? 0, total: row[index + 1].flatMap { Double($0) } ?? 0)
        }
    }

    public func rollupDistributions(projectID: Int64, metric: String, filter: RollupFilter) throws -> [RollupDistribution] {
        if filter.events != nil {
            if let split = FacetSplit(filter) {
                return try facetDistributions(projectID: projectID, metric: metric, filter: filter, split: split)
            }
            return try eventDistributions(projectID: projectID, metric: metric, filter: filter)
        }
        let groups = Self.groups(filter)
        let keys = groups.joined(separator: ", ")
        let rows = try cluster.entry.rows("""
            SELECT \(keys), bucket, sum(observations) FROM \(cluster.rollupTable("apm_rollup_histograms"))
            WHERE project_id = \(projectID) AND metric = \(ClickHouseNode.literal(metric))\(rollupClause(filter))
            GROUP BY \(keys), bucket
            """)
        return try Self.histograms(rows, dimensionField: 1, filter: filter)
    }

    /// Histogram rows (`[dimension at dimensionField], [app_version], [day], bucket, count`, the
    /// bracketed keys as `filter` groups by them) summed into one histogram per key, in the order
    /// the keys first appear. Throws on a row with another number of fields.
    static func histograms(_ rows: [[String?]], dimensionField: Int, filter: RollupFilter) throws -> [RollupDistribution] {
        let width = dimensionField + 1 + (filter.byVersion ? 1 : 0) + (filter.byDay ? 1 : 0) + 2
        var grouped: [RollupDistribution] = []
        var index: [String: Int] = [:]
        for row in rows {
            guard row.count == width else { throw ClickHouseError.unexpectedAnswer("\(row.count) fields in a histogram row") }
            var field = dimensionField + 1
            var version: String?
            var day: Int64?
            if filter.byVersion { version = row[field] ?? ""; field += 1 }
            if filter.byDay { day = row[field].flatMap { Int64($0) }; field += 1 }
            let dimension = row[dimensionField] ?? ""
            let key = "\(dimension)\u{1}\(version ?? "")\u{1}\(day.map(String.init) ?? "")"
            if index[key] == nil {
                index[key] = grouped.count
                grouped.append(RollupDistribution(dimension: dimension, appVersion: version, day: day, histogram: LogHistogram()))
            }
            grouped[index[key]!].histogram.add(bucket: row[field].flatMap { Int($0) } ?? 0,
                                               count: row[field + 1].flatMap { Int64($0) } ?? 0)
        }
        return grouped
    }

    /// The versions that sent any event: the `events` sums' versions (every event adds one).
    public func appVersions(projectID: Int64) throws -> [String] {
        try cluster.entry.rows("""
            SELECT DISTINCT app_version FROM \(cluster.rollupTable("apm_rollup_sums"))
            WHERE project_id = \(projectID) AND metric = 'events'
            """)
            .compactMap { $0.first ?? nil }
            .sorted { ServerStore.versionPrecedes($1, $0) }
    }

    /// Registers per version, dimension, metric (and day): the dimension filter is not applied,
    /// as on the roll-up tables, since release health keys its sketches by version.
    public func sketchRegisters(projectID: Int64, metrics: [String], filter: RollupFilter) throws -> [SketchRegisterRow] {
        guard !metrics.isEmpty else { return [] }
        if filter.events != nil { return try eventSketchRegisters(projectID: projectID, metrics: metrics, filter: filter) }
        let groups = filter.byDay ? "app_version, dimension, metric, day, register" : "app_version, dimension, metric, register"
        var dayless = filter
        dayless.dimension = nil
        return try cluster.entry.rows("""
            SELECT \(groups), maxMerge(rank) FROM \(cluster.rollupTable("apm_rollup_sketches"))
            WHERE project_id = \(projectID) AND metric IN (\(list(metrics)))\(rollupClause(dayless))
            GROUP BY \(groups)
            """).map { row in
            let rank = filter.byDay ? 5 : 4
            return SketchRegisterRow(appVersion: row[0] ?? "", dimension: row[1] ?? "", metric: row[2] ?? "",
                                     day: filter.byDay ? row[3].flatMap { Int64($0) } ?? 0 : nil,
                                     register: row[rank - 1].flatMap { Int($0) } ?? 0, rank: row[rank].flatMap { UInt8($0) } ?? 0)
        }
    }
}
