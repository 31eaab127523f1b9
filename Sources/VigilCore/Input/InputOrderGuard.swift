/// Keeps one stream of timestamped detector inputs in order: an input older than the last
/// accepted one is rejected, and a stream that keeps arriving "in the past" is resynchronised
/// rather than starved forever.
///
/// Why resynchronise: a single absurd timestamp far in the future (a corrupt reading, a clock
/// that jumped) would otherwise make every later, correct input look out of order. After
/// ``resynchronizeAfter`` consecutive rejections the guard accepts the next input as the new
/// reference and reports ``Admission/resynchronized`` so the detector can drop any state that
/// was measured against the bad reference.
///
/// Value type, O(1) per input; the owner serialises access.
public struct InputOrderGuard: Sendable, Hashable {
    /// What the guard decided about one input.
    public enum Admission: Sendable, Hashable {
        /// The input is at or after the last accepted one.
        case accepted
        /// The input is exactly as old as the last accepted one; a second delivery of the same
        /// reading. Detectors treat it as a duplicate.
        case duplicate
        /// The input is older than the last accepted one and was skipped.
        case rejected
        /// The input is older than the last accepted one, but the stream has been "in the past"
        /// for too long: it was accepted as the new reference.
        case resynchronized

        /// Whether the input is to be processed: accepted, or accepted as the new reference.
        public var isUsable: Bool { self == .accepted || self == .resynchronized }
    }

    /// Consecutive rejections after which the stream resynchronises.
    public let resynchronizeAfter: Int
    /// The last accepted instant, nil before the first input.
    public private(set) var last: MonotonicInstant?
    private var consecutiveRejections = 0

    /// A guard with no reference yet.
    /// - Parameter resynchronizeAfter: consecutive out-of-order inputs tolerated before the next
    ///   one becomes the new reference (at least 1).
    public init(resynchronizeAfter: Int = 3) {
        self.resynchronizeAfter = max(1, resynchronizeAfter)
    }

    /// Judges `instant` and, when it is accepted, makes it the new reference.
    public mutating func admit(_ instant: MonotonicInstant) -> Admission {
        guard let last else {
            self.last = instant
            return .accepted
        }
        if instant > last {
            self.last = instant
            consecutiveRejections = 0
            return .accepted
        }
        if instant == last {
            consecutiveRejections = 0
            return .duplicate
        }
        consecutiveRejections += 1
        if consecutiveRejections > resynchronizeAfter {
            consecutiveRejections = 0
            self.last = instant
            return .resynchronized
        }
        return .rejected
    }

    /// Forgets the reference, e.g. after the detector was reset.
    public mutating func reset() {
        last = nil
        consecutiveRejections = 0
    }
}
