/// What the ``FrameMonitor`` saw and skipped. Every field only grows.
public struct FrameMonitorCounters: Sendable, Hashable {
    /// Frames accepted.
    public var frames = 0
    /// Inputs older than the last accepted input of their stream, skipped.
    public var outOfOrderInputs = 0
    /// Frames with the same timestamp as the previous one, skipped.
    public var duplicateInputs = 0
    /// Streams resynchronised after repeated out-of-order input.
    public var resynchronizations = 0
    /// Frames with an impossible duration (non-finite, not positive, over 1 s), skipped.
    public var absurdInputs = 0
    /// Gaps longer than the maximum gap: treated as a restart of the frame sequence, not as a
    /// frozen frame.
    public var discontinuities = 0
    /// Stack captures requested (one per freeze).
    public var captureRequests = 0
    /// Stacks fed when no capture was pending, dropped.
    public var unexpectedStacks = 0
    /// Freezes that monitoring stopped in the middle of (background, pause), not measured.
    public var interruptedFreezes = 0
    /// Frozen frames counted but not listed because the per-report list was full.
    public var unlistedFrozenFrames = 0
    /// Frames attributed to the overflow page because too many pages were tracked.
    public var pageOverflowFrames = 0
    /// Page statistics discarded by a final flush because they covered less than the minimum
    /// window.
    public var discardedShortWindows = 0
    /// `resume` calls without a matching `pause`.
    public var unbalancedResumes = 0

    /// All zero.
    public init() {}
}
