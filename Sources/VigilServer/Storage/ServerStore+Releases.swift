import Foundation
import VigilCore

extension RollupSource {
    /// Release health of the project from `sinceDay` to `untilDay` (days since 1970, both
    /// included; nil: open), of one app `version` when given:
    /// one ``ReleaseHealth`` per release over the period, newest version first, and beside
    /// each its figures per day, oldest first.
    ///
    /// Counts are exact sums of the roll-ups; distinct users merge each release's sketch
    /// registers over the days (the per-register maximum). Cost: three grouped reads of the
    /// roll-up tables, bounded by releases × days × 16,384 sketch registers.
    ///
    /// `dailyUsers: false` leaves the per-day figures without users (the dashboard draws none):
    /// the sketches are then merged over the days in SQL, one row per touched register and
    /// release instead of one per register, release and day.
    public func releaseHealth(projectID: Int64, sinceDay: Int64? = nil, untilDay: Int64? = nil, version: String? = nil,
                              dailyUsers: Bool = true) throws
        -> [(total: ReleaseHealth, days: [ReleaseHealth])] {
        var filter = RollupFilter(version: version, sinceDay: sinceDay, byVersion: true, byDay: true)
        filter.untilDay = untilDay
        typealias Key = ReleaseHealthKey
        var figures: [Key: ReleaseHealth] = [:]
        func update(_ key: Key, _ change: (inout ReleaseHealth) -> Void) {
            change(&figures[key, default: ReleaseHealth(version: key.version, build: key.build, day: key.day)])
        }
        let outcomeNames = Dictionary(uniqueKeysWithValues: SessionOutcome.allCases.map { (ReleaseMetric.outcome($0), $0) })
        for row in try rollupSums(projectID: projectID, metrics: ReleaseMetric.summed, filter: filter) {
            let version = row.appVersion ?? ""
            for key in [Key(version: version, build: row.dimension, day: row.day), Key(version: version, build: row.dimension, day: nil)] {
                update(key) { health in
                    switch row.metric {
                    case ReleaseMetric.sessions: health.sessions += row.count; health.durationMs += row.total
                    case ReleaseMetric.foreground: health.foregroundMs += row.total
                    case ReleaseMetric.hangs: health.hangs += row.count; health.hangMs += row.total
                    default: if let outcome = outcomeNames[row.metric] { health.outcomes[outcome, default: 0] += row.count }
                    }
                }
            }
        }
        // Sketches: per day as stored, and per release merged over the days.
        var sketches: [Key: (users: HyperLogLog, crashed: HyperLogLog)] = [:]
        var sketchFilter = filter
        sketchFilter.byDay = dailyUsers
        for row in try sketchRegisters(projectID: projectID, metrics: [ReleaseMetric.users, ReleaseMetric.crashedUsers],
                                       filter: sketchFilter) {
            let crashed = row.metric == ReleaseMetric.crashedUsers
            let keys = dailyUsers ? [Key(version: row.appVersion, build: row.dimension, day: row.day),
                                     Key(version: row.appVersion, build: row.dimension, day: nil)]
                : [Key(version: row.appVersion, build: row.dimension, day: nil)]
            for key in keys {
                // In place: copying a sketch out and back would copy its 16 KiB of registers per row.
                if crashed {
                    sketches[key, default: (HyperLogLog(), HyperLogLog())].crashed.set(register: row.register, rank: row.rank)
                } else {
                    sketches[key, default: (HyperLogLog(), HyperLogLog())].users.set(register: row.register, rank: row.rank)
                }
            }
        }
        for (key, pair) in sketches {
            update(key) { health in
                health.users = pair.users.count
                health.crashedUsers = pair.crashed.count
            }
        }
        for distribution in try rollupDistributions(projectID: projectID, metric: ReleaseMetric.ttid, filter: filter) {
            let version = distribution.appVersion ?? ""
            update(Key(version: version, build: distribution.dimension, day: distribution.day)) { health in
                health.ttidP50 = distribution.histogram.quantile(0.5)
                health.ttidP90 = distribution.histogram.quantile(0.9)
            }
        }
        var merged: [Key: LogHistogram] = [:]
        for distribution in try rollupDistributions(projectID: projectID, metric: ReleaseMetric.ttid,
                                                    filter: { var overall = filter; overall.byDay = false; return overall }()) {
            merged[Key(version: distribution.appVersion ?? "", build: distribution.dimension, day: nil)] = distribution.histogram
        }
        for (key, histogram) in merged {
            update(key) { health in
                health.ttidP50 = histogram.quantile(0.5)
                health.ttidP90 = histogram.quantile(0.9)
            }
        }
        // Adoption: a release's share of all sessions, over the period and on each day.
        var sessionsByDay: [Int64?: Int64] = [:]
        for (key, health) in figures { sessionsByDay[key.day, default: 0] += health.sessions }
        for key in Array(figures.keys) {
            let all = sessionsByDay[key.day] ?? 0
            update(key) { health in health.adoption = all > 0 ? Double(health.sessions) / Double(all) : 0 }
        }
        let totals = figures.filter { $0.key.day == nil }.values.sorted { a, b in
            a.version != b.version ? ServerStore.versionPrecedes(b.version, a.version) : ServerStore.versionPrecedes(b.build, a.build)
        }
        return totals.map { total in
            let days = figures.values.filter { $0.day != nil && $0.version == total.version && $0.build == total.build }
                .sorted { ($0.day ?? 0) < ($1.day ?? 0) }
            return (total, days)
        }
    }
}

/// A release (version and build) over the period (`day` nil) or on one day.
struct ReleaseHealthKey: Hashable {
    var version: String
    var build: String
    var day: Int64?
}
