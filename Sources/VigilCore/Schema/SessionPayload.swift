import Foundation

/// How an app session ended, as decided at the next launch from the markers it left (or at a
/// clean stop).
///
/// The raw values are the wire form (`background-killed` has a hyphen).
public enum SessionOutcome: String, Codable, Sendable, CaseIterable {
    /// The session ended cleanly: the SDK was stopped, or the app terminated normally.
    case exited
    /// A crash report of this session was recovered.
    case crashed
    /// The process died inside a main-thread hang (the hang marker was still there).
    case fatalHang
    /// The process vanished in the foreground with no crash report, no clean exit and no app
    /// or OS upgrade in between: a watchdog or out-of-memory termination, most likely.
    case abnormal
    /// The process vanished while in the background, where the system ends apps at will; not
    /// counted against the release's health.
    case backgroundKilled = "background-killed"

    /// Whether the outcome counts against crash-free sessions and users (crashes and fatal
    /// hangs do; abnormal exits have their own rate; clean exits and background kills are
    /// healthy).
    public var isCrash: Bool { self == .crashed || self == .fatalHang }
}

/// Payload of a `session` event: one app session (one run of the process) from start to end,
/// its foreground time and how it ended.
public struct SessionPayload: Codable, Sendable, Hashable {
    /// When the session started (wall clock).
    public var start: Date
    /// When it ended, or for a session that vanished, the last moment it was known alive.
    public var end: Date
    /// `end - start` in milliseconds (measured on the monotonic clock while it ran).
    public var durationMs: Double
    /// Time spent in the foreground, in milliseconds, up to ``end``.
    public var foregroundMs: Double
    /// How the session ended.
    public var outcome: SessionOutcome
    /// Why the outcome was inferred, in words (e.g. "no crash report, no clean exit, last seen
    /// in the foreground"), first the deciding one.
    public var reasons: [String]
    /// The app state when the session was last seen (`foreground` or `background`).
    public var lastAppState: String?

    public init(start: Date, end: Date, durationMs: Double, foregroundMs: Double, outcome: SessionOutcome,
                reasons: [String] = [], lastAppState: String? = nil) {
        self.start = start
        self.end = end
        self.durationMs = durationMs
        self.foregroundMs = foregroundMs
        self.outcome = outcome
        self.reasons = reasons
        self.lastAppState = lastAppState
    }
}
