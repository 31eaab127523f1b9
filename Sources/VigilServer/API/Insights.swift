import Foundation
import VigilCore

/// Hang ranking row: one page's hangs.
public struct HangPageStat: Sendable, Hashable, Codable {
    /// The page (screen) it belongs to.
    public var page: String
    /// Hangs counted.
    public var hangs: Int64
    /// Total hang time, in milliseconds.
    public var totalMs: Double
    /// Median, in milliseconds.
    public var p50Ms: Double?
    /// 95th percentile, in milliseconds.
    public var p95Ms: Double?
}

/// Frame health of one page.
public struct FramePageStat: Sendable, Hashable, Codable {
    /// The page (screen) it belongs to.
    public var page: String
    /// Frame windows counted.
    public var windows: Int64
    /// Frames rendered (or the resolved stack, innermost first).
    public var frames: Int64
    /// Frames dropped.
    public var dropped: Int64
    /// Gaps that dropped 3 frames or more.
    public var slow: Int64
    /// Gaps that dropped 7 frames or more.
    public var severe: Int64
    /// Frozen frames (gaps of 700 ms or more).
    public var frozen: Int64
    /// Slow gaps per rendered frame.
    public var slowRatio: Double
    /// Frozen frames per rendered frame.
    public var frozenRatio: Double
}

/// Mean phase durations of a request template, in milliseconds (over requests that had the phase).
public struct NetworkPhases: Sendable, Hashable, Codable {
    /// Name resolution, in milliseconds.
    public var dns: Double?
    /// TCP connect, in milliseconds.
    public var connect: Double?
    /// TLS handshake, in milliseconds.
    public var tls: Double?
    /// Sending the request, in milliseconds.
    public var request: Double?
    /// Request sent to first response byte, in milliseconds.
    public var ttfb: Double?
    /// First to last response byte, in milliseconds.
    public var response: Double?
}

/// One request template's latency and errors.
public struct NetworkTemplateStat: Sendable, Hashable, Codable {
    /// `METHOD urlTemplate`.
    public var template: String
    /// Requests counted.
    public var requests: Int64
    /// Requests that failed (transport error or 5xx).
    public var errors: Int64
    /// Mean total duration, in milliseconds.
    public var meanMs: Double
    /// Median, in milliseconds.
    public var p50Ms: Double?
    /// 95th percentile, in milliseconds.
    public var p95Ms: Double?
    /// 99th percentile, in milliseconds.
    public var p99Ms: Double?
    /// Mean duration of each phase.
    public var phases: NetworkPhases
}

/// Launch times of one version and launch kind.
public struct LaunchStat: Sendable, Hashable, Codable {
    /// App version.
    public var version: String
    /// What it is (`crash`/`hang`, or a launch kind).
    public var kind: String
    /// Launches counted.
    public var launches: Int64
    /// Median time to initial display, in milliseconds.
    public var ttidP50Ms: Double?
    /// 90th percentile of time to initial display, in milliseconds.
    public var ttidP90Ms: Double?
    /// Median time to full display, in milliseconds.
    public var ttfdP50Ms: Double?
    /// 90th percentile of time to full display, in milliseconds.
    public var ttfdP90Ms: Double?
}

/// One day of a version's cold-launch TTID.
public struct LaunchTrendPoint: Sendable, Hashable, Codable {
    /// `YYYY-MM-DD`.
    public var day: String
    /// App version.
    public var version: String
    /// Median time to initial display, in milliseconds.
    public var ttidP50Ms: Double?
    /// Launches counted.
    public var launches: Int64
}

/// One line of a version comparison.
public struct ComparisonRow: Sendable, Hashable, Codable {
    /// `hangs`, `crashes`, `network`, `launch`, `frames`.
    public var area: String
    /// Page, template or launch kind.
    public var dimension: String
    /// What is compared, e.g. `p95 ms`, `per launch`.
    public var measure: String
    /// The value in the base version, when it has one.
    public var base: Double?
    /// The value in the target version, when it has one.
    public var target: Double?
    /// Relative change (target / base - 1), nil when either side is missing or base is 0.
    public var change: Double?
    /// Whether the target is worse by more than the threshold (10%).
    public var worse: Bool
}

/// The project's headline numbers.
public struct Overview: Sendable, Hashable, Codable {
    /// Events by type.
    public var eventsByType: [String: Int64]
    /// Events per day (`YYYY-MM-DD`), all types.
    public var eventsByDay: [String: Int64]
    /// Crash issues of the project.
    public var crashIssues: Int
    /// Hang issues of the project.
    public var hangIssues: Int
    /// Events stored and not yet processed.
    public var pending: Int
    /// App versions, newest first.
    public var versions: [String]
}

/// The aggregate views behind the dashboard and the query API, computed from roll-ups.
public struct Insights: Sendable {
    let store: ServerStore
    let rollupSource: any RollupSource

    /// Views over the roll-ups of `rollups` (the main database's by default), with issues,
    /// pending counts and the views that need raw events from `store`.
    public init(store: ServerStore, rollups: (any RollupSource)? = nil) {
        self.store = store
        rollupSource = rollups ?? store
    }

    /// Hangs per page, most total hang time first.
    public func hangs(projectID: Int64, filter: RollupFilter = RollupFilter()) throws -> [HangPageStat] {
        let sums = try rollupSource.rollupSums(projectID: projectID, metrics: ["hang"], filter: filter)
        let distributions = Dictionary(try rollupSource.rollupDistributions(projectID: projectID, metric: "hang.duration", filter: filter)
            .map { ($0.dimension, $0.histogram) }, uniquingKeysWith: { var a = $0; a.merge($1); return a })
        return sums.map { row in
            HangPageStat(page: row.dimension, hangs: row.count, totalMs: row.total,
                         p50Ms: distributions[row.dimension]?.quantile(0.5), p95Ms: distributions[row.dimension]?.quantile(0.95))
        }.sorted { ($0.totalMs, $1.page) > ($1.totalMs, $0.page) }
    }

    /// Frame health per page, worst slow ratio first.
    public func frames(projectID: Int64, filter: RollupFilter = RollupFilter()) throws -> [FramePageStat] {
        let rows = try rollupSource.rollupSums(projectID: projectID, metrics: ["frames.windows", "frames.dropped", "frames.slow",
                                                                        "frames.severe", "frames.frozen"], filter: filter)
        var pages: [String: FramePageStat] = [:]
        for row in rows {
            var stat = pages[row.dimension] ?? FramePageStat(page: row.dimension, windows: 0, frames: 0, dropped: 0, slow: 0,
                                                             severe: 0, frozen: 0, slowRatio: 0, frozenRatio: 0)
            switch row.metric {
            case "frames.windows": stat.windows = row.count; stat.frames = Int64(row.total)
            case "frames.dropped": stat.dropped = Int64(row.total)
            case "frames.slow": stat.slow = Int64(row.total)
            case "frames.severe": stat.severe = Int64(row.total)
            default: stat.frozen = Int64(row.total)
            }
            pages[row.dimension] = stat
        }
        return Self.ranked(Array(pages.values))
    }

    /// `pages` with their ratios computed, worst first (slow ratio, frozen frames weighing ten times).
    static func ranked(_ pages: [FramePageStat]) -> [FramePageStat] {
        pages.map { stat in
            var stat = stat
            let frames = Double(max(1, stat.frames))
            stat.slowRatio = Double(stat.slow) / frames
            stat.frozenRatio = Double(stat.frozen) / frames
            return stat
        }.sorted { ($0.slowRatio + $0.frozenRatio * 10, $1.page) > ($1.slowRatio + $1.frozenRatio * 10, $0.page) }
    }

    /// Request templates, slowest p95 first.
    public func network(projectID: Int64, filter: RollupFilter = RollupFilter()) throws -> [NetworkTemplateStat] {
        try network(projectID: projectID, filter: filter,
                    latency: try rollupSource.rollupDistributions(projectID: projectID, metric: "network.total", filter: filter))
    }

    /// As ``network(projectID:filter:)``, given the `network.total` distributions already read
    /// with the same filter.
    func network(projectID: Int64, filter: RollupFilter, latency: [RollupDistribution]) throws -> [NetworkTemplateStat] {
        let phases = ["dns", "connect", "tls", "request", "ttfb", "response"]
        let rows = try rollupSource.rollupSums(projectID: projectID, metrics: ["network", "network.errors"] + phases.map { "network.\($0)" },
                                        filter: filter)
        let distributions = Dictionary(latency.map { ($0.dimension, $0.histogram) }, uniquingKeysWith: { var a = $0; a.merge($1); return a })
        var byTemplate: [String: [String: RollupRow]] = [:]
        for row in rows { byTemplate[row.dimension, default: [:]][row.metric] = row }
        return byTemplate.compactMap { template, metrics -> NetworkTemplateStat? in
            guard let total = metrics["network"], total.count > 0 else { return nil }
            func mean(_ phase: String) -> Double? {
                guard let row = metrics["network.\(phase)"], row.count > 0 else { return nil }
                return row.total / Double(row.count)
            }
            let histogram = distributions[template]
            return NetworkTemplateStat(template: template, requests: total.count, errors: metrics["network.errors"]?.count ?? 0,
                                       meanMs: total.total / Double(total.count), p50Ms: histogram?.quantile(0.5),
                                       p95Ms: histogram?.quantile(0.95), p99Ms: histogram?.quantile(0.99),
                                       phases: NetworkPhases(dns: mean("dns"), connect: mean("connect"), tls: mean("tls"),
                                                             request: mean("request"), ttfb: mean("ttfb"), response: mean("response")))
        }.sorted { ($0.p95Ms ?? 0, $1.template) > ($1.p95Ms ?? 0, $0.template) }
    }

    /// Launch percentiles per version and kind, newest version first.
    public func launches(projectID: Int64, filter: RollupFilter = RollupFilter()) throws -> [LaunchStat] {
        var grouped = filter
        grouped.byVersion = true
        let counts = try rollupSource.rollupSums(projectID: projectID, metrics: ["launch"], filter: grouped)
        let ttid = try rollupSource.rollupDistributions(projectID: projectID, metric: "launch.ttid", filter: grouped)
        let ttfd = try rollupSource.rollupDistributions(projectID: projectID, metric: "launch.ttfd", filter: grouped)
        func find(_ list: [RollupDistribution], _ kind: String, _ version: String) -> LogHistogram? {
            list.first { $0.dimension == kind && $0.appVersion == version }?.histogram
        }
        let order = try rollupSource.appVersions(projectID: projectID)
        return counts.map { row in
            let version = row.appVersion ?? ""
            let first = find(ttid, row.dimension, version)
            let full = find(ttfd, row.dimension, version)
            return LaunchStat(version: version, kind: row.dimension, launches: row.count,
                              ttidP50Ms: first?.quantile(0.5), ttidP90Ms: first?.quantile(0.9),
                              ttfdP50Ms: full?.quantile(0.5), ttfdP90Ms: full?.quantile(0.9))
        }.sorted { lhs, rhs in
            let left = order.firstIndex(of: lhs.version) ?? Int.max
            let right = order.firstIndex(of: rhs.version) ?? Int.max
            return (left, lhs.kind) < (right, rhs.kind)
        }
    }

    /// Daily cold-launch TTID median per version, oldest day first.
    public func launchTrend(projectID: Int64, filter: RollupFilter = RollupFilter()) throws -> [LaunchTrendPoint] {
        var grouped = filter
        grouped.byVersion = true
        grouped.byDay = true
        let distributions = try rollupSource.rollupDistributions(projectID: projectID, metric: "launch.ttid", filter: grouped)
            .filter { $0.dimension == "cold" }
        return distributions.map { item in
            LaunchTrendPoint(day: Self.dayString(item.day ?? 0), version: item.appVersion ?? "", ttidP50Ms: item.histogram.quantile(0.5),
                             launches: item.histogram.total)
        }.sorted { ($0.day, $0.version) < ($1.day, $1.version) }
    }

    /// What got worse (and better) from version `base` to version `target`, each version's
    /// figures narrowed by `filter` (its time range, OS version, device model and page; its
    /// release is replaced by the version compared).
    public func compare(projectID: Int64, base: String, target: String, filter: DashboardFilter = DashboardFilter(range: .all),
                        now: Date = Date(), threshold: Double = 0.10) throws -> [ComparisonRow] {
        var rows: [ComparisonRow] = []
        func row(_ area: String, _ dimension: String, _ measure: String, _ left: Double?, _ right: Double?, higherIsWorse: Bool = true) {
            guard left != nil || right != nil else { return }
            var change: Double?
            if let left, let right, left > 0 { change = right / left - 1 }
            let worse: Bool
            if let change { worse = higherIsWorse ? change > threshold : change < -threshold } else { worse = left == nil && (right ?? 0) > 0 && higherIsWorse }
            rows.append(ComparisonRow(area: area, dimension: dimension, measure: measure, base: left, target: right,
                                      change: change, worse: worse))
        }
        var baseFilter = filter
        baseFilter.release = base
        var targetFilter = filter
        targetFilter.release = target
        // Views read from the events read both versions in one pass (the release is then a
        // condition on each row the time or OS / device / page index finds, so two passes
        // would read every row twice); views served by roll-ups read each version's rows.
        let events = EventAggregates(store: store)
        let versions = [base, target]
        // One entry when a version is compared with itself.
        let sideFilters = Dictionary([(base, baseFilter), (target, targetFilter)]) { first, _ in first }
        @Sendable func sides<T>(_ view: (DashboardFilter) throws -> T) throws -> [String: T] {
            try sideFilters.mapValues(view)
        }
        // A roll-up source holding the events (ClickHouse) narrows each side itself.
        let bothFromEvents = Self.readsEvents(filter) && !rollupSource.filtersEvents
        let rawFromEvents = filter.needsRawEvents && !rollupSource.filtersEvents
        // The five areas do not depend on each other: they are read at once.
        let launchRead = ConcurrentRead { () throws -> [String: [LaunchStat]] in
            if bothFromEvents {
                let both = try events.launches(projectID: projectID, filter: filter, now: now, versions: versions)
                return Dictionary(grouping: both.versions, by: \.version)
            }
            return try sides { try launches(projectID: projectID, filter: $0, now: now).versions }
        }
        let hangRead = ConcurrentRead {
            rawFromEvents ? try events.hangs(projectID: projectID, filter: filter, now: now, versions: versions)
                : try sides { try hangs(projectID: projectID, filter: $0, now: now) }
        }
        let crashRead = ConcurrentRead {
            bothFromEvents ? try crashesFromEvents(projectID: projectID, filter: filter, now: now, versions: versions)
                : try sides { try crashes(projectID: projectID, filter: $0, now: now) }
        }
        let networkRead = ConcurrentRead {
            bothFromEvents ? try events.network(projectID: projectID, filter: filter, now: now, versions: versions, withPhases: false)
                : try sides { try network(projectID: projectID, filter: $0, now: now) }
        }
        let frameRead = ConcurrentRead {
            rawFromEvents ? try events.frames(projectID: projectID, filter: filter, now: now, versions: versions)
                : try sides { try frames(projectID: projectID, filter: $0, now: now) }
        }
        // The longest first (requests, frames), so that the short ones fill in beside them.
        [networkRead, frameRead, launchRead, hangRead, crashRead].runAtOnce()
        let launchSides = try launchRead.value()
        let launchesBase = launchSides[base] ?? [], launchesTarget = launchSides[target] ?? []
        // Rates per launch make versions with different audiences comparable.
        let baseLaunches = Double(launchesBase.reduce(0) { $0 + $1.launches })
        let targetLaunches = Double(launchesTarget.reduce(0) { $0 + $1.launches })
        func rate(_ count: Int64?, _ launches: Double) -> Double? {
            guard let count else { return nil }
            return launches > 0 ? Double(count) / launches : Double(count)
        }
        let measure = baseLaunches > 0 && targetLaunches > 0 ? "per launch" : "count"
        let hangSides = try hangRead.value()
        let baseHangs = Dictionary(uniqueKeysWithValues: (hangSides[base] ?? []).map { ($0.page, $0) })
        let targetHangs = Dictionary(uniqueKeysWithValues: (hangSides[target] ?? []).map { ($0.page, $0) })
        for page in Set(baseHangs.keys).union(targetHangs.keys).sorted() {
            row("hangs", page, "hangs \(measure)", rate(baseHangs[page]?.hangs, baseLaunches), rate(targetHangs[page]?.hangs, targetLaunches))
        }
        let crashSides = try crashRead.value()
        let crashesBase = crashSides[base] ?? [:], crashesTarget = crashSides[target] ?? [:]
        for kind in Set(crashesBase.keys).union(crashesTarget.keys).sorted() {
            row("crashes", kind, "crashes \(measure)", rate(crashesBase[kind], baseLaunches), rate(crashesTarget[kind], targetLaunches))
        }
        let networkSides = try networkRead.value()
        let networkBase = Dictionary(uniqueKeysWithValues: (networkSides[base] ?? []).map { ($0.template, $0) })
        let networkTarget = Dictionary(uniqueKeysWithValues: (networkSides[target] ?? []).map { ($0.template, $0) })
        for template in Set(networkBase.keys).union(networkTarget.keys).sorted() {
            row("network", template, "p95 ms", networkBase[template]?.p95Ms, networkTarget[template]?.p95Ms)
        }
        // Launch kinds over every version of the side (one version per side here).
        func byKind(_ stats: [LaunchStat]) -> [String: Double] {
            Dictionary(stats.compactMap { stat in stat.ttidP50Ms.map { (stat.kind, $0) } }, uniquingKeysWith: { first, _ in first })
        }
        let kindsBase = byKind(launchesBase), kindsTarget = byKind(launchesTarget)
        for kind in Set(launchesBase.map(\.kind)).union(launchesTarget.map(\.kind)).sorted() {
            row("launch", kind, "TTID p50 ms", kindsBase[kind], kindsTarget[kind])
        }
        let frameSides = try frameRead.value()
        let framesBase = Dictionary(uniqueKeysWithValues: (frameSides[base] ?? []).map { ($0.page, $0) })
        let framesTarget = Dictionary(uniqueKeysWithValues: (frameSides[target] ?? []).map { ($0.page, $0) })
        for page in Set(framesBase.keys).union(framesTarget.keys).sorted() {
            row("frames", page, "slow frame ratio", framesBase[page]?.slowRatio, framesTarget[page]?.slowRatio)
        }
        return rows.sorted { ($0.worse ? 0 : 1, $0.area, $0.dimension) < ($1.worse ? 0 : 1, $1.area, $1.dimension) }
    }

    /// Headline numbers.
    public func overview(projectID: Int64) throws -> Overview {
        let rows = try rollupSource.rollupSums(projectID: projectID, metrics: ["events"], filter: RollupFilter(byDay: true))
        var byType: [String: Int64] = [:]
        var byDay: [String: Int64] = [:]
        for row in rows {
            byType[row.dimension, default: 0] += row.count
            byDay[Self.dayString(row.day ?? 0), default: 0] += row.count
        }
        let issues = try store.issues(projectID: projectID, limit: 1000)
        return Overview(eventsByType: byType, eventsByDay: byDay, crashIssues: issues.filter { $0.kind == "crash" }.count,
                        hangIssues: issues.filter { $0.kind == "hang" }.count,
                        pending: try store.eventCounts(projectID: projectID).pending, versions: try rollupSource.appVersions(projectID: projectID))
    }

    /// `YYYY-MM-DD` for a day number.
    static func dayString(_ day: Int64) -> String {
        String(Timestamp.format(Date(timeIntervalSince1970: Double(day) * 86_400)).prefix(10))
    }
}
