import Foundation

/// A clock whose time moves only when a test says so.
///
/// Both readings start at fixed values (monotonic 1 s, wall 2026-01-01T00:00:00Z) and move
/// together with ``advance(byMilliseconds:)``. Thread-safe, so a test may hand it to code that
/// reads it from a background queue.
public final class TestClock: VigilClock, @unchecked Sendable {
    private let lock = NSLock()
    private var monotonic: MonotonicInstant
    private var wall: Date

    /// A clock at the given readings.
    public init(monotonic: MonotonicInstant = MonotonicInstant(nanoseconds: 1_000_000_000),
                wall: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        self.monotonic = monotonic
        self.wall = wall
    }

    /// The monotonic reading; moves only with ``advance(byMilliseconds:)``.
    public func monotonicNow() -> MonotonicInstant {
        lock.lock(); defer { lock.unlock() }
        return monotonic
    }

    /// The wall reading; moves with ``advance(byMilliseconds:)`` and ``setWall(_:)``.
    public func wallNow() -> Date {
        lock.lock(); defer { lock.unlock() }
        return wall
    }

    /// Moves both readings forward by `milliseconds` (which must not be negative).
    public func advance(byMilliseconds milliseconds: Double) {
        precondition(milliseconds >= 0, "TestClock only moves forward; use setWall(_:) to model a wall-clock jump")
        lock.lock(); defer { lock.unlock() }
        monotonic = monotonic.advanced(byMilliseconds: milliseconds)
        wall = wall.addingTimeInterval(milliseconds / 1000)
    }

    /// Sets the wall reading alone, to model a user or NTP changing the time.
    public func setWall(_ date: Date) {
        lock.lock(); defer { lock.unlock() }
        wall = date
    }
}
