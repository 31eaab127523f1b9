/// A measured launch: the payload to emit and how it counts in statistics.
public struct LaunchResult: Sendable, Hashable {
    /// The `launch` payload.
    public var payload: LaunchPayload
    /// False for prewarmed launches (and for everything but cold launches): only cold launches
    /// feed cold-start statistics, and a prewarmed one would make them look better than users
    /// experience.
    public var countsTowardColdStatistics: Bool

    /// A result with the given parts.
    public init(payload: LaunchPayload, countsTowardColdStatistics: Bool) {
        self.payload = payload
        self.countsTowardColdStatistics = countsTowardColdStatistics
    }
}
