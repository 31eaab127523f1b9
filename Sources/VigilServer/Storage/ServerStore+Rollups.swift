import Foundation

/// One roll-up row group: a metric's count and total for a dimension (and version and day,
/// when grouped by them).
public struct RollupRow: Sendable, Hashable {
    /// What is measured, e.g. `hang`, `network.total`.
    public var metric: String
    /// Page, request template, launch kind or span name.
    public var dimension: String
    /// Marketing version of the app.
    public var appVersion: String?
    /// Days since 1970 (UTC), when grouped by day.
    public var day: Int64?
    /// How many observations.
    public var count: Int64
    /// Sum of the observed values.
    public var total: Double
}

/// A histogram for one dimension (and version and day, when grouped by them).
public struct RollupDistribution: Sendable, Hashable {
    /// Page, request template, launch kind or span name.
    public var dimension: String
    /// Marketing version of the app.
    public var appVersion: String?
    /// Days since 1970 (UTC), when grouped by day.
    public var day: Int64?
    /// The observations.
    public var histogram: LogHistogram
}

/// What to sum over: which versions, days and dimension.
public struct RollupFilter: Sendable, Hashable {
    /// Only this app version.
    public var version: String?
    /// Only days at or after this one (days since 1970).
    public var sinceDay: Int64?
    /// Only days at or before this one (days since 1970).
    public var untilDay: Int64? = nil
    /// Only this dimension (a page, for the metrics kept by page).
    public var dimension: String? = nil
    /// Keep versions apart.
    public var byVersion = false
    /// Keep days apart.
    public var byDay = false
    /// What only a source that holds the events themselves can narrow by (exact times, OS
    /// version, device model, the event's page); nil for the roll-up tables, which are not kept
    /// by them. Set only when ``RollupSource/filtersEvents``.
    public var events: EventNarrowing? = nil

    /// Creates a filter.
    public init(version: String? = nil, sinceDay: Int64? = nil, byVersion: Bool = false, byDay: Bool = false) {
        self.version = version
        self.sinceDay = sinceDay
        self.byVersion = byVersion
        self.byDay = byDay
    }

    /// The part of a dashboard filter that roll-ups can serve: the UTC days its time range
    /// touches and its release; its page too when `pageIsDimension` (hangs, frames). OS version
    /// and device model are not kept in roll-ups (``DashboardFilter/needsRawEvents``).
    public init(_ filter: DashboardFilter, now: Date, pageIsDimension: Bool, byVersion: Bool = false, byDay: Bool = false) {
        let days = filter.days(now: now)
        self.init(version: filter.release, sinceDay: days.first, byVersion: byVersion, byDay: byDay)
        untilDay = days.last
        if pageIsDimension { dimension = filter.page }
    }

    /// `filter` for a source that holds the events themselves (``RollupSource/filtersEvents``):
    /// the days and release as for the roll-up tables, narrowed further by the exact range, OS
    /// version, device model and page (``EventNarrowing``), so that the figures equal those read
    /// from the main database's events.
    public static func overEvents(_ filter: DashboardFilter, now: Date, pageIsDimension: Bool, byVersion: Bool = false) -> RollupFilter {
        var rollups = RollupFilter(filter, now: now, pageIsDimension: pageIsDimension, byVersion: byVersion)
        rollups.events = EventNarrowing(filter, now: now, pageIsDimension: pageIsDimension)
        return rollups
    }
}

/// The part of a ``DashboardFilter`` that roll-up tables cannot apply and an event table can:
/// the exact time range (ms since 1970, start inclusive, end exclusive), OS version, device
/// model, and the page an event was on (the column, not a roll-up's dimension).
public struct EventNarrowing: Sendable, Hashable {
    /// First millisecond included; nil: open.
    public var start: Int64?
    /// First millisecond excluded; nil: open.
    public var end: Int64?
    /// Only this OS version.
    public var osVersion: String?
    /// Only this device model.
    public var deviceModel: String?
    /// Only events on this page.
    public var page: String?

    /// The filter's exact range, OS version and device model, and its page when the page is not
    /// the roll-up's dimension already.
    public init(_ filter: DashboardFilter, now: Date, pageIsDimension: Bool) {
        (start, end) = filter.interval(now: now)
        osVersion = filter.osVersion
        deviceModel = filter.deviceModel
        page = pageIsDimension ? nil : filter.page
    }
}

extension ServerStore {
    /// Summed roll-ups of `metrics` for the project.
    public func rollupSums(projectID: Int64, metrics: [String], filter: RollupFilter = RollupFilter()) throws -> [RollupRow] {
        guard !metrics.isEmpty else { return [] }
        return try database.read { connection in
            let (clause, arguments) = Self.where(projectID: projectID, metrics: metrics, filter: filter)
            let groups = ["metric", "dimension"] + (filter.byVersion ? ["app_version"] : []) + (filter.byDay ? ["day"] : [])
            let rows = try connection.query("""
                SELECT \(groups.joined(separator: ", ")), SUM(count) AS count, SUM(total) AS total FROM rollup_sums
                WHERE \(clause) GROUP BY \(groups.joined(separator: ", "))
                """, arguments)
            return rows.map { row in
                RollupRow(metric: row.string("metric") ?? "", dimension: row.string("dimension") ?? "",
                          appVersion: filter.byVersion ? row.string("app_version") : nil,
                          day: filter.byDay ? row.int64("day") : nil, count: row.int64("count"), total: row.double("total"))
            }
        }
    }

    /// Histograms of `metric` for the project, one per dimension (and version and day when asked).
    public func rollupDistributions(projectID: Int64, metric: String, filter: RollupFilter = RollupFilter()) throws -> [RollupDistribution] {
        try database.read { connection in
            let (clause, arguments) = Self.where(projectID: projectID, metrics: [metric], filter: filter)
            let groups = ["dimension"] + (filter.byVersion ? ["app_version"] : []) + (filter.byDay ? ["day"] : [])
            let rows = try connection.query("""
                SELECT \(groups.joined(separator: ", ")), bucket, SUM(count) AS count FROM rollup_histograms
                WHERE \(clause) GROUP BY \(groups.joined(separator: ", ")), bucket
                """, arguments)
            var grouped: [RollupDistribution] = []
            var index: [String: Int] = [:]
            for row in rows {
                let dimension = row.string("dimension") ?? ""
                let version = filter.byVersion ? row.string("app_version") : nil
                let day = filter.byDay ? row.int64("day") : nil
                let key = "\(dimension)\u{1}\(version ?? "")\u{1}\(day.map(String.init) ?? "")"
                if index[key] == nil {
                    index[key] = grouped.count
                    grouped.append(RollupDistribution(dimension: dimension, appVersion: version, day: day, histogram: LogHistogram()))
                }
                grouped[index[key]!].histogram.add(bucket: row.int("bucket"), count: row.int64("count"))
            }
            return grouped
        }
    }

    /// The dimensions (pages, templates…) `metrics` have roll-ups for, in byte order, at most `limit`.
    public func rollupDimensions(projectID: Int64, metrics: [String], limit: Int = 200) throws -> [String] {
        guard !metrics.isEmpty else { return [] }
        return try database.read { connection in
            try connection.query("""
                SELECT DISTINCT dimension FROM rollup_sums WHERE project_id = ?
                AND metric IN (\(Array(repeating: "?", count: metrics.count).joined(separator: ", "))) ORDER BY dimension LIMIT ?
                """, [.integer(projectID)] + metrics.map { .text($0) } + [.int(limit)]).compactMap { $0.string("dimension") }
        }
    }

    /// App versions with any roll-up, highest version first (`3.10.0` after `3.9.1`).
    public func appVersions(projectID: Int64) throws -> [String] {
        try database.read { connection in
            try connection.query("""
                SELECT DISTINCT app_version FROM rollup_sums WHERE project_id = ? AND metric = 'events'
                """, [.integer(projectID)]).compactMap { $0.string("app_version") }
        }.sorted { Self.versionPrecedes($1, $0) }
    }

    /// Whether version `a` sorts before `b`: numeric runs compare as numbers, the rest as text.
    static func versionPrecedes(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: [.numeric]) == .orderedAscending
    }

    private static func `where`(projectID: Int64, metrics: [String], filter: RollupFilter) -> (String, [SQLValue]) {
        precondition(filter.events == nil, "the roll-up tables are not kept by OS, device or exact time")
        var clause = "project_id = ? AND metric IN (\(Array(repeating: "?", count: metrics.count).joined(separator: ", ")))"
        var arguments: [SQLValue] = [.integer(projectID)] + metrics.map { .text($0) }
        if let version = filter.version { clause += " AND app_version = ?"; arguments.append(.text(version)) }
        if let since = filter.sinceDay { clause += " AND day >= ?"; arguments.append(.integer(since)) }
        if let until = filter.untilDay { clause += " AND day <= ?"; arguments.append(.integer(until)) }
        if let dimension = filter.dimension { clause += " AND dimension = ?"; arguments.append(.text(dimension)) }
        return (clause, arguments)
    }
}
