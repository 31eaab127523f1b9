/// Where the dashboard and the query API read roll-ups from: the roll-up tables of the main
/// database (``ServerStore``), or queries over the event table on ClickHouse
/// (``ClickHouseEventStore``). Both give the same figures for the same events.
public protocol RollupSource: Sendable {
    /// Whether this source holds the events themselves and so applies ``RollupFilter/events``
    /// (exact times, OS version, device model, an event's page).
    var filtersEvents: Bool { get }
    /// Summed roll-ups of `metrics` for the project.
    func rollupSums(projectID: Int64, metrics: [String], filter: RollupFilter) throws -> [RollupRow]
    /// Histograms of `metric` for the project, one per dimension (and version and day when asked).
    func rollupDistributions(projectID: Int64, metric: String, filter: RollupFilter) throws -> [RollupDistribution]
    /// App versions with any event, highest version first.
    func appVersions(projectID: Int64) throws -> [String]
    /// Registers of the distinct-count sketches `metrics` within `filter`'s days and version:
    /// per version, build (dimension), metric and (when `filter.byDay`) day, each touched
    /// register with its highest rank.
    func sketchRegisters(projectID: Int64, metrics: [String], filter: RollupFilter) throws -> [SketchRegisterRow]
    /// Per issue fingerprint, the events of `types` within `filter`'s version and
    /// ``RollupFilter/events`` that the issue holds, counted over the source's own events; nil
    /// when the source does not hold them (the main database counts its issue events itself).
    func issueCounts(projectID: Int64, types: [String], filter: RollupFilter) throws -> [IssueCountRow]?
}

/// One issue's events within a filter, by its fingerprint (``RollupSource/issueCounts(projectID:types:filter:)``).
public struct IssueCountRow: Sendable, Hashable {
    /// The issue's fingerprint.
    public var fingerprint: String
    /// Its events.
    public var events: Int64
    /// Their distinct sessions.
    public var users: Int64
    /// The first event's time, ms since 1970.
    public var firstSeen: Int64
    /// The last event's time, ms since 1970.
    public var lastSeen: Int64
}

/// One register of a release's distinct-count sketch on one day.
public struct SketchRegisterRow: Sendable, Hashable {
    /// App version.
    public var appVersion: String
    /// The build.
    public var dimension: String
    /// ``ReleaseMetric/users`` or ``ReleaseMetric/crashedUsers``.
    public var metric: String
    /// Days since 1970; nil when the days were merged.
    public var day: Int64?
    /// Register index.
    public var register: Int
    /// Its rank.
    public var rank: UInt8
}

extension ServerStore: RollupSource {
    /// The roll-up tables are kept by metric, dimension, version and day only.
    public var filtersEvents: Bool { false }

    /// nil: the issue list counts the main database's issue events itself (``EventAggregates``).
    public func issueCounts(projectID: Int64, types: [String], filter: RollupFilter) throws -> [IssueCountRow]? { nil }

    public func sketchRegisters(projectID: Int64, metrics: [String], filter: RollupFilter) throws -> [SketchRegisterRow] {
        guard !metrics.isEmpty else { return [] }
        return try database.read { connection in
            // Without days, the registers are merged over them in SQL: one row per touched
            // register and release instead of one per register, release and day.
            var sql = filter.byDay ? """
                SELECT app_version, dimension, metric, day, register, rank FROM rollup_sketches
                WHERE project_id = ? AND metric IN (\(Array(repeating: "?", count: metrics.count).joined(separator: ", ")))
                """ : """
                SELECT app_version, dimension, metric, register, MAX(rank) AS rank FROM rollup_sketches
                WHERE project_id = ? AND metric IN (\(Array(repeating: "?", count: metrics.count).joined(separator: ", ")))
                """
            var arguments: [SQLValue] = [.integer(projectID)] + metrics.map { .text($0) }
            if let sinceDay = filter.sinceDay { sql += " AND day >= ?"; arguments.append(.integer(sinceDay)) }
            if let untilDay = filter.untilDay { sql += " AND day <= ?"; arguments.append(.integer(untilDay)) }
            if let version = filter.version { sql += " AND app_version = ?"; arguments.append(.text(version)) }
            if !filter.byDay { sql += " GROUP BY app_version, dimension, metric, register" }
            return try connection.query(sql, arguments).map { row in
                SketchRegisterRow(appVersion: row.string("app_version") ?? "", dimension: row.string("dimension") ?? "",
                                  metric: row.string("metric") ?? "", day: filter.byDay ? row.int64("day") : nil,
                                  register: row.int("register"), rank: UInt8(clamping: row.int("rank")))
            }
        }
    }
}
