/// What network recording saw and why it kept or dropped each request; read through the SDK's
/// diagnostics. Counts only grow.
public struct NetworkRecordingCounters: Sendable, Hashable, Codable {
    /// Requests that finished while recording.
    public var observed: UInt64 = 0
    /// Recorded because they failed.
    public var keptFailure: UInt64 = 0
    /// Recorded because they were slow.
    public var keptSlow: UInt64 = 0
    /// Recorded by the sampling rate.
    public var keptSampled: UInt64 = 0
    /// Dropped by the sampling rate.
    public var droppedBySampling: UInt64 = 0
    /// Not recorded: excluded host.
    public var droppedExcludedHost: UInt64 = 0
    /// Forgotten because more than ``NetworkConfiguration/maximumInFlight`` were in flight.
    public var droppedOverflow: UInt64 = 0
    /// Requests that were sent a `traceparent` header by Vigil.
    public var traceContextInjected: UInt64 = 0

    /// Zero counts.
    public init() {}

    /// Counts one decision.
    public mutating func count(_ decision: SamplingDecision) {
        observed &+= 1
        switch decision {
        case .keptFailure: keptFailure &+= 1
        case .keptSlow: keptSlow &+= 1
        case .keptSampled: keptSampled &+= 1
        case .droppedBySampling: droppedBySampling &+= 1
        case .droppedExcludedHost: droppedExcludedHost &+= 1
        }
    }

    /// Requests that became events.
    public var recorded: UInt64 { keptFailure &+ keptSlow &+ keptSampled }
}
