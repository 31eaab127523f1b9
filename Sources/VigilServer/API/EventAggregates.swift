import Foundation
import VigilCore

/// The dashboard's views computed from the stored events themselves, for filters the roll-ups
/// cannot serve: OS version and device model (columns of `apm_event`, not roll-up keys), and a
/// page on views whose roll-up dimension is not the page (requests, launches, the overview).
///
/// Each view is one query over one event type in the filter's exact time range; the filter's
/// conditions are bound parameters (``DashboardFilter/eventConditions(now:alias:)``), values
/// inside payloads are read by the database's JSON functions. Counts include events stored
/// and not yet processed. Cost: proportional to the matching events, which the indexes on
/// `(project_id, type, occurred_at)` and `(project_id, os_version | device_model | page, type,
/// occurred_at)` find without reading the others.
public struct EventAggregates: Sendable {
    let store: ServerStore

    /// Views over `store`'s events.
    public init(store: ServerStore) { self.store = store }

    private func rows(type: String, columns: String, filter: DashboardFilter, now: Date, projectID: Int64,
                      versions: [String]? = nil, suffix: String = "") throws -> [SQLRow] {
        let conditions = Self.conditions(filter, now: now, versions: versions)
        return try store.database.read { connection in
            try connection.query("SELECT \(columns) FROM apm_event WHERE project_id = ? AND type = ?\(conditions.sql)\(suffix)",
                                 [.integer(projectID), .text(type)] + conditions.arguments)
        }
    }

    /// `filter`'s conditions on the events; with `versions`, its release replaced by
    /// `app_version IN (versions)`, so that one pass serves every version compared.
    static func conditions(_ filter: DashboardFilter, now: Date, versions: [String]?) -> DashboardFilter.SQLFragment {
        guard let versions, !versions.isEmpty else { return filter.eventConditions(now: now) }
        var narrowed = filter
        narrowed.release = nil
        var conditions = narrowed.eventConditions(now: now)
        conditions.sql += " AND app_version IN (" + versions.map { _ in "?" }.joined(separator: ", ") + ")"
        conditions.arguments += versions.map { .text($0) }
        return conditions
    }

    /// The version a row counts for: its `app_version` when the views are split by version,
    /// otherwise one key for all.
    private static func side(_ row: SQLRow, _ versions: [String]?) -> String {
        versions == nil ? "" : row.string("app_version") ?? ""
    }

    /// Hangs per page (as ``Insights/hangs(projectID:filter:)`` from roll-ups).
    public func hangs(projectID: Int64, filter: DashboardFilter, now: Date) throws -> [HangPageStat] {
        try hangs(projectID: projectID, filter: filter, now: now, versions: nil)[""] ?? []
    }

    /// Hangs per page for each of `versions` (keyed by version) in one pass over the events, or
    /// for the filter as it is (keyed by the empty string) when `versions` is nil.
    func hangs(projectID: Int64, filter: DashboardFilter, now: Date, versions: [String]?) throws -> [String: [HangPageStat]] {
        struct Key: Hashable { var side: String; var page: String }
        var pages: [Key: (count: Int64, total: Double, histogram: LogHistogram)] = [:]
        for row in try rows(type: "hang", columns: "app_version, page, duration_ms", filter: filter, now: now, projectID: projectID,
                            versions: versions) {
            let key = Key(side: Self.side(row, versions), page: row.string("page") ?? "(no page)")
            let duration = row.double("duration_ms")
            var entry = pages[key] ?? (0, 0, LogHistogram())
            entry.count += 1
            entry.total += duration
            entry.histogram.add(duration)
            pages[key] = entry
        }
        var sides: [String: [HangPageStat]] = [:]
        for (key, entry) in pages {
            sides[key.side, default: []].append(HangPageStat(page: key.page, hangs: entry.count, totalMs: entry.total,
                                                             p50Ms: entry.histogram.quantile(0.5), p95Ms: entry.histogram.quantile(0.95)))
        }
        return sides.mapValues { $0.sorted { ($0.totalMs, $1.page) > ($1.totalMs, $0.page) } }
    }

    /// Frame health per page (as ``Insights/frames(projectID:filter:)`` from roll-ups).
    public func frames(projectID: Int64, filter: DashboardFilter, now: Date) throws -> [FramePageStat] {
        try frames(projectID: projectID, filter: filter, now: now, versions: nil)[""] ?? []
    }

    /// Frame health per page for each of `versions` (keyed by version) in one pass, or for the
    /// filter as it is (keyed by the empty string) when `versions` is nil.
    func frames(projectID: Int64, filter: DashboardFilter, now: Date, versions: [String]?) throws -> [String: [FramePageStat]] {
        let split = versions != nil
        let keys = split ? "app_version, page" : "page"
        // The window's counts are columns of its row (schema 12): no JSON is parsed. The rows
        // are found first and grouped after (a materialized CTE): a plain GROUP BY page lets
        // the planner walk the page index for its order, every frame window of the project,
        // instead of the OS or device index for the few that match.
        let fields = ["frames", "dropped", "slow", "severe", "frozen"]
        let conditions = Self.conditions(filter, now: now, versions: versions)
        let sums = fields.map { "CAST(SUM(\($0)) AS BIGINT) AS \($0)" }.joined(separator: ", ")
        let counts = zip(ServerStore.frameCountColumns, fields).map { "\($0) AS \($1)" }.joined(separator: ", ")
        let rows = try store.database.read { connection in
            try connection.query("""
                WITH windows AS MATERIALIZED (SELECT \(keys), \(counts) FROM apm_event
                                              WHERE project_id = ? AND type = 'frames'\(conditions.sql))
                SELECT \(keys), COUNT(*) AS windows, \(sums) FROM windows GROUP BY \(keys)
                """, [.integer(projectID)] + conditions.arguments)
        }
        struct Key: Hashable { var side: String; var page: String }
        var pages: [Key: FramePageStat] = [:]
        for row in rows {
            let key = Key(side: Self.side(row, versions), page: row.string("page") ?? "(no page)")
            var stat = pages[key] ?? FramePageStat(page: key.page, windows: 0, frames: 0, dropped: 0, slow: 0, severe: 0, frozen: 0,
                                                   slowRatio: 0, frozenRatio: 0)
            stat.windows += row.int64("windows")
            stat.frames += row.int64("frames")
            stat.dropped += row.int64("dropped")
            stat.slow += row.int64("slow")
            stat.severe += row.int64("severe")
            stat.frozen += row.int64("frozen")
            pages[key] = stat
        }
        var sides: [String: [FramePageStat]] = [:]
        for (key, stat) in pages { sides[key.side, default: []].append(stat) }
        return sides.mapValues { Insights.ranked($0) }
    }

    /// Request templates, slowest p95 first (as ``Insights/network(projectID:filter:)`` from roll-ups).
    ///
    /// Read from `request_facts` (one narrow row per stored request, its payload's values as
    /// columns), not from `apm_event`: the matching rows are a few tens of bytes each instead
    /// of a kilobyte of JSON to fetch and parse. Where the database has `ln` (PostgreSQL;
    /// SQLite built with its math functions, as Debian's is) the requests are summed in SQL by
    /// template and histogram bucket, so only a row per (template, bucket) comes back;
    /// elsewhere each request is read.
    public func network(projectID: Int64, filter: DashboardFilter, now: Date) throws -> [NetworkTemplateStat] {
        try network(projectID: projectID, filter: filter, now: now, versions: nil)[""] ?? []
    }

    /// Request templates for each of `versions` (keyed by version) in one pass, or for the
    /// filter as it is (keyed by the empty string) when `versions` is nil. Without
    /// `withPhases` the templates' phase means are left nil and not summed (a third of the
    /// query's cost; the comparison reads only counts and percentiles).
    func network(projectID: Int64, filter: DashboardFilter, now: Date, versions: [String]?,
                 withPhases: Bool = true) throws -> [String: [NetworkTemplateStat]] {
        try networkWithLatency(projectID: projectID, filter: filter, now: now, versions: versions, withPhases: withPhases)
            .mapValues(\.templates)
    }

    /// As ``network(projectID:filter:now:versions:withPhases:)``, with each side's latency
    /// histogram over all its requests (the templates' histograms merged), so a page showing
    /// both reads the requests once.
    func networkWithLatency(projectID: Int64, filter: DashboardFilter, now: Date, versions: [String]?,
                            withPhases: Bool = true) throws -> [String: (templates: [NetworkTemplateStat], latency: LogHistogram)] {
        let phases = withPhases ? ["dns", "connect", "tls", "request", "ttfb", "response"] : []
        struct Accumulator {
            var count: Int64 = 0
            var errors: Int64 = 0
            var total = 0.0
            var histogram = LogHistogram()
            var phaseSums = [Double](repeating: 0, count: 6)
            var phaseCounts = [Int64](repeating: 0, count: 6)
        }
        struct Key: Hashable { var side: String; var template: String }
        var templates: [Key: Accumulator] = [:]
        let split = versions != nil
        let conditions = Self.conditions(filter, now: now, versions: versions)
        let store = self.store
        // Within a time range the two halves of it are read at once (every figure below is a
        // sum or a histogram bucket count, so the halves' rows add up): a long range waits for
        // half its requests on each core instead of all of them on one.
        let halves = Self.halves(filter, now: now)
        func facts(_ columns: [String], suffix: String = "") throws -> [SQLRow] {
            let reads = halves.map { half in
                ConcurrentRead {
                    try store.database.read { connection in
                        try connection.query("SELECT \(columns.joined(separator: ", ")) FROM request_facts WHERE project_id = ?"
                                             + conditions.sql + half.sql + suffix,
                                             [.integer(projectID)] + conditions.arguments + half.arguments)
                    }
                }
            }
            reads.map { $0 as any ConcurrentReadable }.runAtOnce()
            return try reads.flatMap { try $0.value() }
        }
        if try hasLogarithm() {
            let bucket = "CASE WHEN duration_ms > 0 THEN CAST(CEIL(ln(duration_ms) / \(log(LogHistogram.gamma))) AS INTEGER) "
                + "ELSE \(LogHistogram.zeroBucket) END"
            let columns = (split ? ["app_version"] : []) + ["template AS template_name", "\(bucket) AS bucket", "COUNT(*) AS n", "SUM(duration_ms) AS total",
                           "SUM(failed) AS errors"]
                + phases.flatMap { ["SUM(\($0)_ms) AS \($0)_sum", "COUNT(\($0)_ms) AS \($0)_n"] }
            for row in try facts(columns, suffix: split ? " GROUP BY app_version, template, bucket" : " GROUP BY template, bucket") {
                let key = Key(side: Self.side(row, versions), template: row.string("template_name") ?? "")
                var entry = templates[key] ?? Accumulator()
                let count = row.int64("n")
                entry.count += count
                entry.total += row.double("total")
                entry.errors += row.int64("errors")
                entry.histogram.add(bucket: row.int("bucket"), count: count)
                for (index, phase) in phases.enumerated() {
                    entry.phaseSums[index] += row.double("\(phase)_sum")
                    entry.phaseCounts[index] += row.int64("\(phase)_n")
                }
                templates[key] = entry
            }
        } else {
            let columns = ["app_version", "template AS template_name", "duration_ms", "failed"] + phases.map { "\($0)_ms AS \($0)" }
            for row in try facts(columns) {
                let key = Key(side: Self.side(row, versions), template: row.string("template_name") ?? "")
                var entry = templates[key] ?? Accumulator()
                let total = row.double("duration_ms")
                entry.count += 1
                entry.total += total
                entry.histogram.add(total)
                entry.errors += row.int64("failed")
                for (index, phase) in phases.enumerated() {
                    if let value = row[phase].double {
                        entry.phaseSums[index] += value
                        entry.phaseCounts[index] += 1
                    }
                }
                templates[key] = entry
            }
        }
        var sides: [String: [NetworkTemplateStat]] = [:]
        var latency: [String: LogHistogram] = [:]
        for (key, entry) in templates {
            latency[key.side, default: LogHistogram()].merge(entry.histogram)
            func mean(_ index: Int) -> Double? { entry.phaseCounts[index] > 0 ? entry.phaseSums[index] / Double(entry.phaseCounts[index]) : nil }
            sides[key.side, default: []].append(NetworkTemplateStat(template: key.template, requests: entry.count, errors: entry.errors, meanMs: entry.total / Double(entry.count),
                                       p50Ms: entry.histogram.quantile(0.5), p95Ms: entry.histogram.quantile(0.95),
                                       p99Ms: entry.histogram.quantile(0.99),
                                       phases: NetworkPhases(dns: mean(0), connect: mean(1), tls: mean(2), request: mean(3),
                                                             ttfb: mean(4), response: mean(5))))
        }
        return sides.reduce(into: [:]) { result, side in
            result[side.key] = (side.value.sorted { ($0.p95Ms ?? 0, $1.template) > ($1.p95Ms ?? 0, $0.template) },
                                latency[side.key] ?? LogHistogram())
        }
    }

    /// Conditions splitting `filter`'s time range at its middle (the end of an open range is
    /// `now`), or one empty condition when the range has no start.
    static func halves(_ filter: DashboardFilter, now: Date) -> [DashboardFilter.SQLFragment] {
        let (start, end) = filter.interval(now: now)
        guard let start else { return [DashboardFilter.SQLFragment(sql: "", arguments: [])] }
        let middle = start + ((end ?? Int64((now.timeIntervalSince1970 * 1000).rounded(.down))) - start) / 2
        return [DashboardFilter.SQLFragment(sql: " AND occurred_at < ?", arguments: [.integer(middle)]),
                DashboardFilter.SQLFragment(sql: " AND occurred_at >= ?", arguments: [.integer(middle)])]
    }

    /// Whether the database has the natural logarithm `ln` (always on PostgreSQL; on SQLite
    /// only when built with its math functions).
    func hasLogarithm() throws -> Bool {
        guard store.dialect == .sqlite else { return true }
        return try store.database.read { connection in
            (try? connection.scalar("SELECT ln(2.0)")) != nil
        }
    }

    /// Launch percentiles per version and kind, and the daily cold-launch TTID median per
    /// version (as ``Insights/launches(projectID:filter:)`` and ``Insights/launchTrend(projectID:filter:)``).
    public func launches(projectID: Int64, filter: DashboardFilter, now: Date) throws -> (versions: [LaunchStat], trend: [LaunchTrendPoint]) {
        try launches(projectID: projectID, filter: filter, now: now, versions: nil)
    }

    /// As ``launches(projectID:filter:now:)``, over `versions` (the filter's release replaced)
    /// when given: already grouped by version, so one pass serves every version compared.
    func launches(projectID: Int64, filter: DashboardFilter, now: Date, versions: [String]?) throws -> (versions: [LaunchStat], trend: [LaunchTrendPoint]) {
        let d = store.dialect
        let columns = "app_version, occurred_at, duration_ms, \(d.jsonValue("payload_json", ["kind"])) AS kind, "
            + "\(d.jsonNumber("payload_json", ["ttfdMs"])) AS ttfd"
        struct Key: Hashable { var version: String; var kind: String }
        struct DayKey: Hashable { var version: String; var day: Int64 }
        var groups: [Key: (count: Int64, ttid: LogHistogram, ttfd: LogHistogram)] = [:]
        var days: [DayKey: LogHistogram] = [:]
        for row in try rows(type: "launch", columns: columns, filter: filter, now: now, projectID: projectID, versions: versions) {
            let key = Key(version: row.string("app_version") ?? "", kind: row.string("kind") ?? "")
            var entry = groups[key] ?? (0, LogHistogram(), LogHistogram())
            entry.count += 1
            if let ttid = row["duration_ms"].double {
                entry.ttid.add(ttid)
                if key.kind == "cold" {
                    days[DayKey(version: key.version, day: DashboardFilter.floorDiv(row.int64("occurred_at"), 86_400_000)), default: LogHistogram()].add(ttid)
                }
            }
            if let ttfd = row["ttfd"].double { entry.ttfd.add(ttfd) }
            groups[key] = entry
        }
        let order = try store.appVersions(projectID: projectID)
        let versions = groups.map { key, entry in
            LaunchStat(version: key.version, kind: key.kind, launches: entry.count, ttidP50Ms: entry.ttid.quantile(0.5),
                       ttidP90Ms: entry.ttid.quantile(0.9), ttfdP50Ms: entry.ttfd.quantile(0.5), ttfdP90Ms: entry.ttfd.quantile(0.9))
        }.sorted { lhs, rhs in
            ((order.firstIndex(of: lhs.version) ?? Int.max), lhs.kind) < ((order.firstIndex(of: rhs.version) ?? Int.max), rhs.kind)
        }
        let trend = days.map { key, histogram in
            LaunchTrendPoint(day: Insights.dayString(key.day), version: key.version, ttidP50Ms: histogram.quantile(0.5),
                             launches: histogram.total)
        }.sorted { ($0.day, $0.version) < ($1.day, $1.version) }
        return (versions, trend)
    }

    /// Events per type and per UTC day (`YYYY-MM-DD`).
    public func eventCounts(projectID: Int64, filter: DashboardFilter, now: Date) throws -> (byType: [String: Int64], byDay: [String: Int64]) {
        let conditions = filter.eventConditions(now: now)
        let rows = try store.database.read { connection in
            try connection.query("""
                SELECT type, occurred_at / 86400000 AS day, COUNT(*) AS n FROM apm_event WHERE project_id = ?\(conditions.sql)
                GROUP BY type, occurred_at / 86400000
                """, [.integer(projectID)] + conditions.arguments)
        }
        var byType: [String: Int64] = [:]
        var byDay: [String: Int64] = [:]
        for row in rows {
            byType[row.string("type") ?? "", default: 0] += row.int64("n")
            byDay[Insights.dayString(row.int64("day")), default: 0] += row.int64("n")
        }
        return (byType, byDay)
    }

    /// The project's issues counted over the filter's events only: events, distinct sessions,
    /// first and last seen within the filter; issues without a matching event are left out.
    /// `state` is one of ``ServerStore/issueStateFilters`` (nil: every state).
    public func issues(projectID: Int64, filter: DashboardFilter, now: Date, kind: String? = nil, state: String? = nil,
                       order: IssueOrder = .events, limit: Int = 100) throws -> [IssueSummary] {
        var conditions = filter.eventConditions(now: now, alias: "e")
        if let state, let (condition, values) = ServerStore.stateCondition(state, now: now) {
            conditions.sql += " AND EXISTS (SELECT 1 FROM issues i WHERE i.id = e.issue_id AND \(condition))"
            conditions.arguments += values
        }
        let types = kind.map { [$0] } ?? ["crash", "hang"]
        let orderBy: String
        switch order {
        case .events: orderBy = "events DESC, users DESC, e.issue_id"
        case .users: orderBy = "users DESC, events DESC, e.issue_id"
        case .recent: orderBy = "last_seen DESC, e.issue_id"
        }
        let counted = try store.database.read { connection in
            try connection.query("""
                SELECT e.issue_id AS issue_id, COUNT(*) AS events, COUNT(DISTINCT e.session_id) AS users,
                       MIN(e.occurred_at) AS first_seen, MAX(e.occurred_at) AS last_seen
                FROM apm_event e WHERE e.project_id = ? AND e.type IN (\(types.map { _ in "?" }.joined(separator: ", ")))
                AND e.issue_id IS NOT NULL\(conditions.sql)
                GROUP BY e.issue_id ORDER BY \(orderBy) LIMIT ?
                """, [.integer(projectID)] + types.map { .text($0) } + conditions.arguments + [.int(max(1, min(limit, 1000)))])
        }
        return try summaries(projectID: projectID, counted.map { row in
            (row.int64("issue_id"), IssueCountRow(fingerprint: "", events: row.int64("events"), users: row.int64("users"),
                                                  firstSeen: row.int64("first_seen"), lastSeen: row.int64("last_seen")))
        })
    }

    /// The issues of `counted` (counts by fingerprint read elsewhere: ClickHouse) as the
    /// filtered ``issues(projectID:filter:now:kind:state:order:limit:)`` gives them: the
    /// project's issues of those fingerprints, of `kind` and in `state` when given, in `order`
    /// (ties as there), at most `limit`, with the counts of `counted`.
    public func issues(projectID: Int64, counted: [IssueCountRow], kind: String?, state: String?, order: IssueOrder,
                       limit: Int, now: Date) throws -> [IssueSummary] {
        let byFingerprint = Dictionary(counted.map { ($0.fingerprint, $0) }, uniquingKeysWith: { first, _ in first })
        var condition = ""
        var values: [SQLValue] = []
        if let kind { condition += " AND i.kind = ?"; values.append(.text(kind)) }
        if let state, let (sql, arguments) = ServerStore.stateCondition(state, now: now) {
            condition += " AND \(sql)"
            values += arguments
        }
        var matched: [(id: Int64, counts: IssueCountRow)] = []
        let fingerprints = byFingerprint.keys.sorted()
        try store.database.read { connection in
            var start = 0
            while start < fingerprints.count {
                let chunk = fingerprints[start..<min(start + 500, fingerprints.count)]
                start += chunk.count
                for row in try connection.query("""
                    SELECT i.id AS id, i.fingerprint AS fingerprint FROM issues i
                    WHERE i.project_id = ? AND i.fingerprint IN (\(chunk.map { _ in "?" }.joined(separator: ", ")))\(condition)
                    """, [.integer(projectID)] + chunk.map { .text($0) } + values) {
                    if let counts = row.string("fingerprint").flatMap({ byFingerprint[$0] }) { matched.append((row.int64("id"), counts)) }
                }
            }
        }
        matched.sort { a, b in
            switch order {
            case .events: return (b.counts.events, b.counts.users, a.id) < (a.counts.events, a.counts.users, b.id)
            case .users: return (b.counts.users, b.counts.events, a.id) < (a.counts.users, a.counts.events, b.id)
            case .recent: return (b.counts.lastSeen, a.id) < (a.counts.lastSeen, b.id)
            }
        }
        return try summaries(projectID: projectID, Array(matched.prefix(max(1, min(limit, 1000)))))
    }

    /// The summaries of the issues `counted` names, in its order, each with the events, users,
    /// first and last seen counted within a filter (an issue gone meanwhile is left out).
    private func summaries(projectID: Int64, _ counted: [(id: Int64, counts: IssueCountRow)]) throws -> [IssueSummary] {
        let details = try store.issues(projectID: projectID, ids: counted.map(\.id))
        return counted.compactMap { item in
            guard var summary = details[item.id] else { return nil }
            summary.events = item.counts.events
            summary.users = item.counts.users
            summary.firstSeen = ServerStore.date(item.counts.firstSeen)
            summary.lastSeen = ServerStore.date(item.counts.lastSeen)
            return summary
        }
    }

    /// Up to `limit` distinct values of an `apm_event` column for the project, in byte order:
    /// one index seek per value (a loose index scan), so the cost does not grow with the events.
    /// `column` is `os_version` or `device_model` (the columns with an index led by them).
    public func distinctValues(projectID: Int64, column: String, limit: Int = 50) throws -> [String] {
        precondition(column == "os_version" || column == "device_model", "no index leads with \(column)")
        return try store.database.read { connection in
            try connection.query("""
                WITH RECURSIVE seen(value, n) AS (
                    SELECT MIN(\(column)), 1 FROM apm_event WHERE project_id = ?
                    UNION ALL
                    SELECT (SELECT MIN(\(column)) FROM apm_event WHERE project_id = ? AND \(column) > seen.value), seen.n + 1
                    FROM seen WHERE seen.value IS NOT NULL AND seen.n < ?
                )
                SELECT value FROM seen WHERE value IS NOT NULL
                """, [.integer(projectID), .integer(projectID), .int(limit)]).compactMap { $0.string("value") }
        }
    }
}
