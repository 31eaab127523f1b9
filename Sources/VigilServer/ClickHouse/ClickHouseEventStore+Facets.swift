import Foundation

/// The roll-ups under a filter on one OS version, device model or page, read from the facet
/// roll-up tables (``ClickHouseSchema/facetRollups(database:reading:)``) for the whole days of the
/// range and from the events for the partial days at its ends (``FacetSplit``), so the figures
/// equal what the events over the exact range give.
///
/// Cost: one query on the facet tables, whose rows grow with projects × facet values × metrics
/// × versions × days × dimensions (× buckets), not with events; plus one event read per partial
/// day (at most two), each limited to a day's rows of the types asked for.
extension ClickHouseEventStore {
    func facetSums(projectID: Int64, metrics: [String], filter: RollupFilter, split: FacetSplit) throws -> [RollupRow] {
        var parts: [[RollupRow]] = []
        if split.hasWholeDays {
            let keys = Self.groups(filter).joined(separator: ", ")
            let rows = try cluster.entry.rows("""
                SELECT \(keys), sum(event_count), sum(total) FROM \(cluster.rollupTable("apm_facet_sums"))
                WHERE project_id = \(projectID)\(facetClause(filter, split))
                  AND metric IN (\(metrics.map(ClickHouseNode.literal).joined(separator: ", ")))
                GROUP BY \(keys)
                """)
            parts.append(try Self.sums(rows, filter: filter))
        }
        for edge in split.edges {
            parts.append(try eventSums(projectID: projectID, metrics: metrics, filter: Self.narrowed(filter, to: edge)))
        }
        guard parts.count > 1 else { return parts.first ?? [] }
        var merged: [RollupRow] = []
        var index: [String: Int] = [:]
        for row in parts.joined() {
            let key = "\(row.metric)\u{1}\(row.dimension)\u{1}\(row.appVersion ?? "")\u{1}\(row.day.map(String.init) ?? "")"
            if let at = index[key] {
                merged[at].count += row.count
                merged[at].total += row.total
            } else {
                index[key] = merged.count
                merged.append(row)
            }
        }
        return merged
    }

    func facetDistributions(projectID: Int64, metric: String, filter: RollupFilter, split: FacetSplit) throws -> [RollupDistribution] {
        var parts: [[RollupDistribution]] = []
        if split.hasWholeDays {
            var groups = ["dimension"]
            if filter.byVersion { groups.append("app_version") }
            if filter.byDay { groups.append("day") }
            let keys = groups.joined(separator: ", ")
            let rows = try cluster.entry.rows("""
                SELECT \(keys), bucket, sum(observations) FROM \(cluster.rollupTable("apm_facet_histograms"))
                WHERE project_id = \(projectID)\(facetClause(filter, split)) AND metric = \(ClickHouseNode.literal(metric))
                GROUP BY \(keys), bucket
                """)
            parts.append(try Self.histograms(rows, dimensionField: 0, filter: filter))
        }
        for edge in split.edges {
            parts.append(try eventDistributions(projectID: projectID, metric: metric, filter: Self.narrowed(filter, to: edge)))
        }
        guard parts.count > 1 else { return parts.first ?? [] }
        var merged: [RollupDistribution] = []
        var index: [String: Int] = [:]
        for item in parts.joined() {
            let key = "\(item.dimension)\u{1}\(item.appVersion ?? "")\u{1}\(item.day.map(String.init) ?? "")"
            if let at = index[key] {
                merged[at].histogram.merge(item.histogram)
            } else {
                index[key] = merged.count
                merged.append(item)
            }
        }
        return merged
    }

    /// The facet, its value, the version, the whole days and the dimension as conditions on a
    /// facet roll-up table.
    private func facetClause(_ filter: RollupFilter, _ split: FacetSplit) -> String {
        var days = filter
        days.sinceDay = split.sinceDay
        days.untilDay = split.untilDay
        return " AND facet = \(ClickHouseNode.literal(split.facet)) AND facet_value = \(ClickHouseNode.literal(split.value))"
            + rollupClause(days)
    }

    /// `filter` over the milliseconds of `edge` only (a partial day of its range).
    static func narrowed(_ filter: RollupFilter, to edge: Range<Int64>) -> RollupFilter {
        var narrowed = filter
        narrowed.events?.start = edge.lowerBound
        narrowed.events?.end = edge.upperBound
        return narrowed
    }
}
