/// What ``StackAggregator`` makes of a set of samples: the distinct stacks with their counts
/// and the hot stack.
public struct StackAggregate: Sendable, Hashable {
    /// Distinct stacks, most frequent first (ties keep first-seen order), at most the
    /// aggregator's `maxStacks`.
    public var stacks: [StackCount]
    /// The hot stack, innermost first; nil when there were no samples.
    public var hotStack: [Address]?
    /// Samples aggregated (including those of omitted stacks).
    public var sampleCount: Int
    /// Distinct stacks beyond `maxStacks`, left out of ``stacks``.
    public var omittedStacks: Int
    /// Samples that belong to the omitted stacks.
    public var omittedSamples: Int

    /// An aggregate with the given parts.
    public init(stacks: [StackCount], hotStack: [Address]?, sampleCount: Int, omittedStacks: Int = 0,
                omittedSamples: Int = 0) {
        self.stacks = stacks
        self.hotStack = hotStack
        self.sampleCount = sampleCount
        self.omittedStacks = omittedStacks
        self.omittedSamples = omittedSamples
    }

    /// The aggregate of no samples.
    public static let empty = StackAggregate(stacks: [], hotStack: nil, sampleCount: 0)
}
