/// Samples the ``ResourceWatch`` used and skipped. Every field only grows.
public struct ResourceWatchCounters: Sendable, Hashable {
    /// Samples turned into payloads.
    public var samples = 0
    /// Samples older than the previous one, skipped.
    public var outOfOrderSamples = 0
    /// Samples at the same instant as the previous one, skipped.
    public var duplicateSamples = 0
    /// Samples with impossible values (non-finite or negative CPU time, CPU time that went
    /// down, or grew faster than every core running flat out): skipped, and the next sample
    /// measures from this one.
    public var absurdSamples = 0
    /// Thread readings that could not be turned into an interval (CPU time went down: the id
    /// was reused; or more than one core's worth for a new id), left out of the top threads.
    public var skippedThreadReadings = 0
    /// CPU blocks reported.
    public var cpuBlocks = 0

    /// All zero.
    public init() {}
}
