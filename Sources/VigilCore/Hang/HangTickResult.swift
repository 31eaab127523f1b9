/// What the watchdog should do after feeding a tick to ``HangDetector/watchdogTick(scheduled:actual:)``.
public struct HangTickResult: Sendable, Hashable {
    /// Transitions and reports produced by the tick.
    public var outputs: [HangDetectorOutput]
    /// Take one main-thread stack sample now and feed it with
    /// ``HangDetector/recordSample(_:at:)`` (or ``HangDetector/recordSampleFailure(at:)``).
    public var takeSample: Bool
    /// When to tick next (monotonic); pass it back as the next tick's `scheduled`. Always after
    /// the tick's `actual` time. The watchdog may tick earlier (e.g. when woken by the main
    /// thread); it must not tick much later, or the lateness reads as a suspension.
    public var nextTick: MonotonicInstant

    /// A tick result with the given parts.
    public init(outputs: [HangDetectorOutput], takeSample: Bool, nextTick: MonotonicInstant) {
        self.outputs = outputs
        self.takeSample = takeSample
        self.nextTick = nextTick
    }
}
