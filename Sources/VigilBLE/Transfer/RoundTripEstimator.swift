/// A transfer's retransmission timeout, computed as RFC 6298 does: a smoothed round-trip time
/// (gain 1/8) and its mean deviation (gain 1/4) from samples; the timeout is SRTT + max(G,
/// 4 × RTTVAR), clamped to a floor and a ceiling, and doubles on each expiry (backoff) until the
/// next sample recomputes it.
///
/// Feed it one sample per round trip (``TransferSender`` times one chunk at a time, never a
/// resent one: Karn's rule). The deviation then measures how round trips vary from one to the
/// next. Sampling every acknowledged chunk instead feeds it, per acknowledgement covering eight
/// chunks, eight nearly equal samples: the deviation shrinks to almost nothing between two
/// acknowledgements, the timeout falls to about the round trip itself, and the first late
/// acknowledgement (a peer that stalls for a few milliseconds) resends chunks that were never lost.
///
/// A pure value: times in nanoseconds from the caller's clock, no clock of its own.
public struct RoundTripEstimator: Sendable, Hashable {
    /// The smoothed round-trip time (ns); nil before the first sample.
    public private(set) var smoothed: Double?
    /// The round trip's mean deviation (ns).
    public private(set) var deviation: Double = 0
    /// The current retransmission timeout (ns), backoff included.
    public private(set) var timeout: Double
    /// The timeout's floor (ns).
    public let minimum: Double
    /// The timeout's ceiling (ns), backoff included.
    public let maximum: Double
    /// The least margin over the smoothed round trip (ns): RFC 6298's clock granularity G.
    public let granularity: Double

    /// An estimator whose timeout is `initial` until the first sample; every timeout is kept
    /// within `minimum`…`maximum` (all ns).
    public init(initial: Double, minimum: Double, maximum: Double, granularity: Double = 1_000_000) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
        self.granularity = granularity
        self.timeout = min(max(initial, minimum), self.maximum)
    }

    /// Takes one round-trip sample (ns) and recomputes the timeout (ending any backoff).
    public mutating func add(sample: Double) {
        if let previous = smoothed {
            deviation = 0.75 * deviation + 0.25 * abs(previous - sample)
            smoothed = 0.875 * previous + 0.125 * sample
        } else {
            smoothed = sample
            deviation = sample / 2
        }
        timeout = min(max((smoothed ?? sample) + max(granularity, 4 * deviation), minimum), maximum)
    }

    /// The timeout expired: doubles it, up to the ceiling.
    public mutating func backOff() {
        timeout = min(timeout * 2, maximum)
    }
}
