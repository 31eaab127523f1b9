/// One main-thread stack captured by the sampler: absolute return addresses, innermost (the
/// sampled program counter) first, and when it was taken.
public struct StackSample: Sendable, Hashable {
    /// When the sample was taken (monotonic).
    public var instant: MonotonicInstant
    /// Return addresses, innermost first.
    public var frames: [Address]

    /// A sample taken at `instant`.
    public init(instant: MonotonicInstant, frames: [Address]) {
        self.instant = instant
        self.frames = frames
    }
}
