import VigilCore

/// How hard the store fights to keep an event when the disk cap forces it to drop some:
/// lower priorities go first, oldest first within a priority.
///
/// Stored as one byte in every record; the raw values are part of the on-disk format.
public enum EventPriority: UInt8, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Debug-level logs.
    case low = 0
    /// Frames, network, resource and span events; error logs.
    case normal = 1
    /// Hangs, launches and healthy sessions.
    case high = 2
    /// Crashes, fatal hangs and sessions that ended badly: written with `fsync` before `enqueue` returns, dropped last.
    case critical = 3

    /// The priority the store gives `event`.
    public init(of event: Event) {
        switch event.payload {
        case .crash: self = .critical
        case .hang(let hang): self = hang.kind == .fatal ? .critical : .high
        case .launch: self = .high
        case .session(let session): self = session.outcome == .exited || session.outcome == .backgroundKilled ? .high : .critical
        case .frames, .network, .resource, .span: self = .normal
        case .log(let log): self = (log.level == .error || log.level == .fatal) ? .normal : .low
        }
    }

    public static func < (lhs: EventPriority, rhs: EventPriority) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .low: return "low"
        case .normal: return "normal"
        case .high: return "high"
        case .critical: return "critical"
        }
    }
}
