/// The slowest a request body may arrive: after a grace period, at least a minimum rate on
/// average, or the connection is dropped. A sender trickling a byte at a time (slowloris on the
/// body) would otherwise hold its connection for as long as the idle timeout keeps being reset.
///
/// Checked whenever a piece of the body arrives, on the connection's worker thread; a sender
/// that stops altogether is closed by the idle timeout.
public struct BodyPacing: Sendable, Hashable {
    /// Seconds a body may take whatever its size, from the end of the headers.
    public var graceSeconds: Double
    /// Bytes per second the body must average beyond the grace period; 0 disables the check.
    public var minimumBytesPerSecond: Double

    /// A pacing rule; the defaults allow 20 s, plus a second per 4 KiB (a 5 MB batch may take 20 min).
    public init(graceSeconds: Double = 20, minimumBytesPerSecond: Double = 4096) {
        self.graceSeconds = max(0, graceSeconds)
        self.minimumBytesPerSecond = max(0, minimumBytesPerSecond)
    }

    /// Whether a body that has delivered `received` bytes in `seconds` is still on pace.
    public func allows(received: Int64, seconds: Double) -> Bool {
        guard minimumBytesPerSecond > 0 else { return true }
        return seconds <= graceSeconds + Double(received) / minimumBytesPerSecond
    }
}
