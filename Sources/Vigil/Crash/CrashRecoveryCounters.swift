import VigilRuntime

/// What the recovery of raw crash reports at start came to: reports turned into events, clean
/// runs, and files discarded by reason. Nothing is dropped silently; this is where it is counted.
public struct CrashRecoveryCounters: Sendable, Hashable {
    /// Reports turned into `crash` events and delivered.
    public var recovered = 0
    /// Empty report files: runs that ended without a crash (or were killed), removed.
    public var cleanRuns = 0
    /// Report files discarded, by reason (`foreign`, `truncated`, `checksumMismatch`, …).
    public var discarded: [RawCrashReportError.Reason: Int] = [:]
    /// Reports kept for the next launch because the sink did not confirm they were stored.
    public var deferred = 0
    /// Report files skipped because a live process holds them (another process sharing the
    /// data directory).
    public var skippedLive = 0
    /// Hang markers of a session that crashed: the crash event carries `fatalHang` instead of a
    /// separate fatal hang event.
    public var hangMarkersMerged = 0

    public init() {}

    /// Total discarded files.
    public var discardedTotal: Int { discarded.values.reduce(0, +) }
}
