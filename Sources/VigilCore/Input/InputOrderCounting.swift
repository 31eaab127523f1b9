/// The counters a detector keeps about the order of its input streams, so that every stream it
/// judges with an ``InputOrderGuard`` is counted the same way
/// (``InputOrderGuard/admit(_:counting:)``).
protocol InputOrderCounting {
    /// Inputs older than the last accepted input of their stream, skipped.
    var outOfOrderInputs: Int { get set }
    /// Inputs at the same instant as the last accepted one, skipped.
    var duplicateInputs: Int { get set }
    /// Streams resynchronised after repeated out-of-order input.
    var resynchronizations: Int { get set }
}

extension HangDetectorCounters: InputOrderCounting {}
extension FrameMonitorCounters: InputOrderCounting {}

extension InputOrderGuard {
    /// Judges `instant` as ``admit(_:)`` does and counts a duplicate, a rejection or a
    /// resynchronisation in `counters`. The caller skips `.duplicate` and `.rejected` inputs.
    mutating func admit(_ instant: MonotonicInstant, counting counters: inout some InputOrderCounting) -> Admission {
        let admission = admit(instant)
        switch admission {
        case .accepted: break
        case .duplicate: counters.duplicateInputs += 1
        case .rejected: counters.outOfOrderInputs += 1
        case .resynchronized: counters.resynchronizations += 1
        }
        return admission
    }
}
