import Foundation

/// The time source every Vigil component takes by injection: a monotonic clock for measuring
/// and a wall clock for stamping events. Tests pass a ``TestClock``.
public protocol VigilClock: Sendable {
    /// Now, on the monotonic clock.
    func monotonicNow() -> MonotonicInstant
    /// Now, on the wall clock.
    func wallNow() -> Date
}

extension VigilClock {
    /// The wall-clock time of a monotonic instant, assuming the wall clock did not jump in
    /// between (good enough for stamping events measured seconds ago).
    public func wallTime(of instant: MonotonicInstant) -> Date {
        let now = monotonicNow()
        return wallNow().addingTimeInterval(-Double(now.nanoseconds(since: instant)) / 1_000_000_000)
    }
}

/// The process's real clocks: `DispatchTime` (monotonic, stops while the device sleeps on Apple
/// platforms, like `mach_absolute_time`) and `Date`.
public struct SystemClock: VigilClock {
    /// The process's clocks. Free to create and to copy.
    public init() {}

    /// `DispatchTime.now()` in nanoseconds: a few tens of nanoseconds, any thread (the
    /// run-loop observer calls it on the main thread).
    public func monotonicNow() -> MonotonicInstant {
        MonotonicInstant(nanoseconds: DispatchTime.now().uptimeNanoseconds)
    }

    /// `Date()`.
    public func wallNow() -> Date { Date() }
}
