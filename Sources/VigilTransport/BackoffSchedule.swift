import VigilCore

/// Retry delays after consecutive failures: the base delay doubling with each failure up to
/// the cap (30 s, 60 s, 120 s … 30 min by default), each moved at random by up to
/// ± ``jitterFraction`` of itself.
public struct BackoffSchedule: Sendable, Hashable {
    /// First delay, seconds.
    public var baseSeconds: Double
    /// Largest delay before jitter, seconds.
    public var capSeconds: Double
    /// Jitter as a fraction of the delay (0.2 = ±20%).
    public var jitterFraction: Double

    /// A schedule with explicit values (seconds; jitter as a fraction).
    public init(baseSeconds: Double, capSeconds: Double, jitterFraction: Double) {
        self.baseSeconds = baseSeconds
        self.capSeconds = capSeconds
        self.jitterFraction = jitterFraction
    }

    /// The schedule of an upload policy.
    public init(_ policy: UploadPolicy) {
        self.init(baseSeconds: policy.backoffBaseSeconds, capSeconds: policy.backoffCapSeconds,
                  jitterFraction: policy.jitterFraction)
    }

    /// The delay without jitter after `failures` consecutive failures (1 → base).
    public func nominalSeconds(afterFailures failures: Int) -> Double {
        let exponent = min(max(failures - 1, 0), 62)
        return min(baseSeconds * Double(UInt64(1) << UInt64(exponent)), max(capSeconds, baseSeconds))
    }

    /// The delay with jitter drawn from `generator`.
    public func seconds<G: RandomNumberGenerator>(afterFailures failures: Int, using generator: inout G) -> Double {
        let nominal = nominalSeconds(afterFailures: failures)
        let unit = Double(generator.next() >> 11) / Double(1 << 53)  // [0, 1)
        return max(0, nominal * (1 + jitterFraction * (2 * unit - 1)))
    }
}
