import Foundation
import VigilCore

/// The views narrowed by a ``DashboardFilter``, each served from the roll-ups when they hold
/// what the filter asks and from the events otherwise (``EventAggregates``):
///
/// | view | roll-ups serve | events serve |
/// |---|---|---|
/// | hangs, frames (by page) | time range (whole UTC days), release, page | OS version, device model |
/// | requests, launches, overview | time range (whole UTC days), release | page, OS version, device model |
/// | crashes (compare) | time range (whole UTC days), release | page, OS version, device model |
///
/// Roll-ups are kept per UTC day, so there a range covers the whole days it touches (the last
/// 24 hours read today and yesterday); the events are read over the exact range.
extension Insights {
    /// Hangs per page, most total hang time first.
    public func hangs(projectID: Int64, filter: DashboardFilter, now: Date) throws -> [HangPageStat] {
        if filter.needsRawEvents {
            if let rollups = eventRollups(filter, now: now, pageIsDimension: true) { return try hangs(projectID: projectID, filter: rollups) }
            return try EventAggregates(store: store).hangs(projectID: projectID, filter: filter, now: now)
        }
        return try hangs(projectID: projectID, filter: RollupFilter(filter, now: now, pageIsDimension: true))
    }

    /// Frame health per page, worst slow ratio first.
    public func frames(projectID: Int64, filter: DashboardFilter, now: Date) throws -> [FramePageStat] {
        if filter.needsRawEvents {
            if let rollups = eventRollups(filter, now: now, pageIsDimension: true) { return try frames(projectID: projectID, filter: rollups) }
            return try EventAggregates(store: store).frames(projectID: projectID, filter: filter, now: now)
        }
        return try frames(projectID: projectID, filter: RollupFilter(filter, now: now, pageIsDimension: true))
    }

    /// Request templates, slowest p95 first.
    public func network(projectID: Int64, filter: DashboardFilter, now: Date) throws -> [NetworkTemplateStat] {
        if Self.readsEvents(filter) {
            if let rollups = eventRollups(filter, now: now, pageIsDimension: false) { return try network(projectID: projectID, filter: rollups) }
            return try EventAggregates(store: store).network(projectID: projectID, filter: filter, now: now)
        }
        return try network(projectID: projectID, filter: RollupFilter(filter, now: now, pageIsDimension: false))
    }

    /// Launch percentiles per version and kind, and the daily cold-launch TTID median per version.
    public func launches(projectID: Int64, filter: DashboardFilter, now: Date) throws -> (versions: [LaunchStat], trend: [LaunchTrendPoint]) {
        var rollups = RollupFilter(filter, now: now, pageIsDimension: false)
        if Self.readsEvents(filter) {
            guard let narrowed = eventRollups(filter, now: now, pageIsDimension: false) else {
                return try EventAggregates(store: store).launches(projectID: projectID, filter: filter, now: now)
            }
            rollups = narrowed
        }
        return (try launches(projectID: projectID, filter: rollups), try launchTrend(projectID: projectID, filter: rollups))
    }

    /// Crashes by kind (signal, exception type or `fatal hang`).
    public func crashes(projectID: Int64, filter: DashboardFilter, now: Date) throws -> [String: Int64] {
        var rollups = RollupFilter(filter, now: now, pageIsDimension: false)
        if Self.readsEvents(filter) {
            guard let narrowed = eventRollups(filter, now: now, pageIsDimension: false) else {
                return try crashesFromEvents(projectID: projectID, filter: filter, now: now, versions: nil)[""] ?? [:]
            }
            rollups = narrowed
        }
        let rows = try rollupSource.rollupSums(projectID: projectID, metrics: ["crash"], filter: rollups)
        return Dictionary(rows.map { ($0.dimension, $0.count) }, uniquingKeysWith: +)
    }

    /// Crashes by kind read from the events, for each of `versions` (keyed by version; the
    /// filter's release replaced) in one pass, or for the filter as it is (keyed by the empty
    /// string) when `versions` is nil.
    func crashesFromEvents(projectID: Int64, filter: DashboardFilter, now: Date, versions: [String]?) throws -> [String: [String: Int64]] {
        let d = store.dialect
        let conditions = EventAggregates.conditions(filter, now: now, versions: versions)
        let rows = try store.database.read { connection in
            try connection.query("""
                SELECT app_version, \(d.jsonValue("payload_json", ["signal"])) AS signal, \(d.jsonValue("payload_json", ["exception", "type"])) AS exception,
                       \(d.jsonValue("payload_json", ["fatalHang"])) AS fatal
                FROM apm_event WHERE project_id = ? AND type = 'crash'\(conditions.sql)
                """, [.integer(projectID)] + conditions.arguments)
        }
        var sides: [String: [String: Int64]] = [:]
        for row in rows {
            // SQLite gives JSON true as 1, PostgreSQL as the text `true`.
            let fatal = row.string("fatal") == "1" || row.string("fatal") == "true"
            let side = versions == nil ? "" : row.string("app_version") ?? ""
            sides[side, default: [:]][fatal ? "fatal hang" : (row.string("signal") ?? row.string("exception") ?? "crash"), default: 0] += 1
        }
        return sides
    }

    /// Headline numbers within the filter: events by type and day, the issues with events in
    /// it, the events waiting for processing (all of them), the versions seen. `issues`, when
    /// the caller already has them (``issues(projectID:filter:now:kind:order:limit:)`` with the
    /// same filter), saves counting them again.
    public func overview(projectID: Int64, filter: DashboardFilter, now: Date, issues known: [IssueSummary]? = nil) throws -> Overview {
        var byType: [String: Int64] = [:]
        var byDay: [String: Int64] = [:]
        let narrowed = Self.readsEvents(filter) ? eventRollups(filter, now: now, pageIsDimension: false) : nil
        if Self.readsEvents(filter), narrowed == nil {
            (byType, byDay) = try EventAggregates(store: store).eventCounts(projectID: projectID, filter: filter, now: now)
        } else {
            var rollups = narrowed ?? RollupFilter(filter, now: now, pageIsDimension: false)
            rollups.byDay = true
            for row in try rollupSource.rollupSums(projectID: projectID, metrics: ["events"], filter: rollups) {
                byType[row.dimension, default: 0] += row.count
                byDay[Self.dayString(row.day ?? 0), default: 0] += row.count
            }
        }
        let issues = try known ?? issues(projectID: projectID, filter: filter, now: now, limit: 1000)
        return Overview(eventsByType: byType, eventsByDay: byDay, crashIssues: issues.filter { $0.kind == "crash" }.count,
                        hangIssues: issues.filter { $0.kind == "hang" }.count,
                        pending: try store.eventCounts(projectID: projectID).pending, versions: try rollupSource.appVersions(projectID: projectID))
    }

    /// Issues with their counts within the filter: for all time and no filter, the issues'
    /// own counters; otherwise counted over the matching events (on ClickHouse with `--events`,
    /// ``RollupSource/issueCounts(projectID:types:filter:)``; else the main database's).
    /// `state` is one of ``ServerStore/issueStateFilters`` (nil: every state).
    public func issues(projectID: Int64, filter: DashboardFilter, now: Date, kind: String? = nil, state: String? = nil,
                       order: IssueOrder = .events, limit: Int = 100) throws -> [IssueSummary] {
        if filter.range == .all, !filter.narrows {
            return try store.issues(projectID: projectID, kind: kind, state: state, order: order, limit: limit, now: now)
        }
        var within = RollupFilter(version: filter.release)
        within.events = EventNarrowing(filter, now: now, pageIsDimension: false)
        if let counted = try rollupSource.issueCounts(projectID: projectID, types: kind.map { [$0] } ?? ["crash", "hang"],
                                                      filter: within) {
            return try EventAggregates(store: store).issues(projectID: projectID, counted: counted, kind: kind, state: state,
                                                            order: order, limit: limit, now: now)
        }
        return try EventAggregates(store: store).issues(projectID: projectID, filter: filter, now: now, kind: kind, state: state,
                                                        order: order, limit: limit)
    }

    /// `filter` for a roll-up source that holds the events themselves (ClickHouse),
    /// ``RollupFilter/overEvents(_:now:pageIsDimension:byVersion:)``; nil when the source holds
    /// roll-ups only.
    func eventRollups(_ filter: DashboardFilter, now: Date, pageIsDimension: Bool, byVersion: Bool = false) -> RollupFilter? {
        guard rollupSource.filtersEvents else { return nil }
        return RollupFilter.overEvents(filter, now: now, pageIsDimension: pageIsDimension, byVersion: byVersion)
    }

    /// Whether a view kept in roll-ups by something other than the page must read events.
    static func readsEvents(_ filter: DashboardFilter) -> Bool {
        filter.needsRawEvents || filter.page != nil
    }
}
