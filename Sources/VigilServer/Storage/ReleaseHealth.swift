import VigilCore

/// The health of one release (app version and build) over a period, or on one day: sessions by
/// outcome, distinct users, foreground and hang time, cold-launch TTID, and the rates made of
/// them. Built by ``ServerStore/releaseHealth(projectID:sinceDay:)`` from the roll-ups.
public struct ReleaseHealth: Sendable, Hashable {
    /// Marketing version, e.g. `3.2.1`.
    public var version: String
    /// Build number.
    public var build: String
    /// Days since 1970 (UTC) for one day's figures; nil for the whole period.
    public var day: Int64?
    /// Sessions reported (every outcome).
    public var sessions: Int64 = 0
    /// Sessions per outcome.
    public var outcomes: [SessionOutcome: Int64] = [:]
    /// Total session time, ms.
    public var durationMs: Double = 0
    /// Total foreground time, ms.
    public var foregroundMs: Double = 0
    /// Hangs of 250 ms or more.
    public var hangs: Int64 = 0
    /// Their total length, ms.
    public var hangMs: Double = 0
    /// Distinct users (user id, else install), estimated (HyperLogLog, ±2 %).
    public var users: Int64 = 0
    /// Distinct users with a crashed or fatally hung session, estimated.
    public var crashedUsers: Int64 = 0
    /// Cold-launch TTID median and 90th percentile, ms; nil without launches.
    public var ttidP50: Double?
    /// See ``ttidP50``.
    public var ttidP90: Double?
    /// Share of all sessions in the period that ran this release, 0 … 1.
    public var adoption: Double = 0

    /// Creates empty figures for a release.
    public init(version: String, build: String, day: Int64? = nil) {
        self.version = version
        self.build = build
        self.day = day
    }

    /// `version (build)`.
    public var name: String { "\(version) (\(build))" }

    /// Sessions that crashed or died in a fatal hang.
    public var crashedSessions: Int64 { (outcomes[.crashed] ?? 0) + (outcomes[.fatalHang] ?? 0) }

    /// Share of sessions that neither crashed nor died in a fatal hang, percent; nil without sessions.
    public var crashFreeSessionsPercent: Double? {
        sessions > 0 ? 100 * Double(sessions - crashedSessions) / Double(sessions) : nil
    }

    /// Share of users none of whose sessions crashed, percent (estimated); nil without users.
    public var crashFreeUsersPercent: Double? {
        users > 0 ? 100 * max(0, 1 - Double(min(crashedUsers, users)) / Double(users)) : nil
    }

    /// Abnormal exits (watchdog or out-of-memory, most likely) per session, percent.
    public var abnormalExitPercent: Double? { rate(.abnormal) }

    /// Fatal hangs per session, percent.
    public var fatalHangPercent: Double? { rate(.fatalHang) }

    /// Seconds of hangs (≥ 250 ms) per hour of foreground time; nil without foreground time.
    public var hangRateSecondsPerHour: Double? {
        foregroundMs > 0 ? (hangMs / 1000) / (foregroundMs / 3_600_000) : nil
    }

    private func rate(_ outcome: SessionOutcome) -> Double? {
        sessions > 0 ? 100 * Double(outcomes[outcome] ?? 0) / Double(sessions) : nil
    }
}
