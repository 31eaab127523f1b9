/// Where a ``LaunchTimeline`` stands.
public enum LaunchOutcome: Sendable, Hashable {
    /// Still waiting for the marks it needs (the origin and the first frame).
    case pending
    /// Measured.
    case completed(LaunchResult)
    /// Measured but not to be reported.
    case dropped(LaunchDropReason)
}

/// Why a launch is not reported.
public enum LaunchDropReason: Sendable, Hashable {
    /// Time to initial display over the maximum (180 s by default), in milliseconds.
    case tooLong(ttidMs: Double)
}
