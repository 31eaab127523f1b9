/// One distinct stack and how many samples hit it; hang reports carry a list of these,
/// most frequent first.
public struct StackCount: Codable, Sendable, Hashable {
    /// Absolute return addresses, innermost (the sampled PC) first.
    public var frames: [Address]
    /// Number of samples that captured exactly this stack.
    public var count: Int

    public init(frames: [Address], count: Int) {
        self.frames = frames
        self.count = count
    }
}
