import VigilCore

/// The roll-up metrics of release health. Each is kept per app version (the roll-up's version),
/// build (its dimension) and UTC day, next to the other roll-ups.
public enum ReleaseMetric {
    /// Sessions: count, and total duration in ms.
    public static let sessions = "release.sessions"
    /// Foreground time: count of sessions, total foreground ms.
    public static let foreground = "release.foreground"
    /// Hangs of 250 ms or more: count, total ms (the numerator of the hang rate).
    public static let hangs = "release.hangs"
    /// Cold-launch TTID histogram, ms.
    public static let ttid = "release.ttid"
    /// Distinct users (user id, else install id, else session) sketch.
    public static let users = "release.users"
    /// Distinct users with a crashed or fatally hung session, sketch.
    public static let crashedUsers = "release.users.crashed"
    /// The hang rate counts hangs at least this long, ms (Xcode Organizer's definition).
    public static let hangRateMinimumMs = 250.0

    /// Sessions that ended with `outcome`: count.
    public static func outcome(_ outcome: SessionOutcome) -> String { "release.outcome." + outcome.rawValue }

    /// Every summed metric.
    public static var summed: [String] { [sessions, foreground, hangs] + SessionOutcome.allCases.map(outcome) }
}
