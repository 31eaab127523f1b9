/// Why a finished request was recorded or dropped.
public enum SamplingDecision: String, Sendable, Hashable, CaseIterable {
    /// Kept: it failed and failures are always kept.
    case keptFailure
    /// Kept: it was slow and slow requests are always kept.
    case keptSlow
    /// Kept by the sampling rate.
    case keptSampled
    /// Dropped by the sampling rate.
    case droppedBySampling
    /// Dropped: its host is excluded.
    case droppedExcludedHost

    /// Whether the request becomes an event.
    public var isKept: Bool {
        switch self {
        case .keptFailure, .keptSlow, .keptSampled: return true
        case .droppedBySampling, .droppedExcludedHost: return false
        }
    }
}
