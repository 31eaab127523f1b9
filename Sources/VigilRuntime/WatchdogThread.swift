import Foundation
import VigilCore

/// One tick of the ``WatchdogThread``: when it was due and when it actually ran.
///
/// A tick that runs much later than it was due means the whole process was not scheduled (the
/// app was suspended, the device slept, a debugger stopped it): the hang detector treats that
/// as a suspension, not as a hang.
public struct WatchdogTick: Sendable, Hashable {
    /// When the tick was scheduled to run.
    public var scheduled: MonotonicInstant
    /// When it ran.
    public var fired: MonotonicInstant
    /// Ticks since the watchdog started, from 1.
    public var sequence: UInt64

    /// A tick due at `scheduled` that ran at `fired`, the `sequence`-th since start.
    public init(scheduled: MonotonicInstant, fired: MonotonicInstant, sequence: UInt64) {
        self.scheduled = scheduled
        self.fired = fired
        self.sequence = sequence
    }

    /// How late the tick ran, in milliseconds (0 when on time or early).
    public var latenessMs: Double { max(0, fired.milliseconds(since: scheduled)) }
}

/// A dedicated thread that wakes when a tick is due and calls a handler with a ``WatchdogTick``.
///
/// The handler returns when the next tick is due (the hang detector's `nextTick`), or nil for
/// one interval after the previous deadline. Deadlines are on the monotonic clock without drift;
/// after a late tick the schedule restarts from now instead of firing a burst of catch-up ticks.
/// The handler runs on the watchdog thread. ``stop()`` wakes the thread at once; ``wake()``
/// makes it tick now.
///
/// Cost: one thread and one wake-up per tick.
public final class WatchdogThread: @unchecked Sendable {
    private let clock: any VigilClock
    private let handler: @Sendable (WatchdogTick) -> MonotonicInstant?
    private let alarm = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var intervalNanoseconds: UInt64
    private var running = false
    private var stopping = false
    private var wokenEarly = false
    private var threadCPUSeconds = 0.0
    private let name: String

    /// A watchdog that calls `handler` on its thread (named `name` for debuggers and /proc)
    /// whenever a tick is due: when the handler's previous answer says, or every `intervalMs`
    /// milliseconds (at least 1) when it answers nil.
    public init(intervalMs: Double, clock: any VigilClock = SystemClock(), name: String = "vigil.watchdog",
                handler: @escaping @Sendable (WatchdogTick) -> MonotonicInstant?) {
        self.clock = clock
        self.handler = handler
        self.name = name
        self.intervalNanoseconds = UInt64(max(1, intervalMs) * 1_000_000)
    }

    /// The current period in milliseconds.
    public var intervalMs: Double {
        lock.lock(); defer { lock.unlock() }
        return Double(intervalNanoseconds) / 1_000_000
    }

    /// Changes the period; takes effect from the next tick.
    public func setInterval(milliseconds: Double) {
        lock.lock(); defer { lock.unlock() }
        intervalNanoseconds = UInt64(max(1, milliseconds) * 1_000_000)
    }

    /// Starts the thread. Idempotent.
    public func start() {
        lock.lock()
        guard !running else { lock.unlock(); return }
        // A stop() that timed out left the previous thread's exit signal unconsumed; the next
        // stop() would take it and return while its own thread is still in the handler.
        while exited.wait(timeout: .now()) == .success {}
        running = true
        stopping = false
        lock.unlock()
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Stops the thread and waits (at most `timeout` seconds) until it has left its loop, so
    /// that no handler call starts after this returns. Idempotent.
    public func stop(timeout: Double = 2) {
        lock.lock()
        guard running, !stopping else { lock.unlock(); return }
        stopping = true
        lock.unlock()
        alarm.signal()
        _ = exited.wait(timeout: .now() + timeout)
    }

    /// CPU time the watchdog thread has used so far (its handler's work included), in seconds,
    /// as of its last tick.
    public var cpuSeconds: Double {
        lock.lock(); defer { lock.unlock() }
        return threadCPUSeconds
    }

    /// Makes the thread tick now instead of at its deadline (the tick's `scheduled` is then
    /// the moment it woke, so an early tick never reads as late).
    public func wake() {
        lock.lock()
        wokenEarly = true
        lock.unlock()
        alarm.signal()
    }

    private func run() {
        var sequence: UInt64 = 0
        var deadline = clock.monotonicNow().advanced(byNanoseconds: Int64(clamping: currentInterval()))
        while true {
            let now = clock.monotonicNow()
            if deadline > now {
                let wait = UInt64(deadline.nanoseconds(since: now))
                _ = alarm.wait(timeout: .now() + .nanoseconds(Int(clamping: wait)))
            }
            if shouldStop() { break }
            let fired = clock.monotonicNow()
            if fired < deadline {
                guard takeEarlyWake() else { continue }
                deadline = fired
            }
            sequence += 1
            let requested = handler(WatchdogTick(scheduled: deadline, fired: fired, sequence: sequence))
            recordThreadCPU()
            let interval = Int64(clamping: currentInterval())
            if let requested, requested > fired {
                deadline = requested
            } else {
                deadline = deadline.advanced(byNanoseconds: interval)
                // Behind by a whole period: restart the schedule rather than fire a burst.
                if deadline <= fired { deadline = fired.advanced(byNanoseconds: interval) }
            }
        }
        lock.lock()
        running = false
        // Under the lock, so that a start() that sees `running` false also sees this signal.
        exited.signal()
        lock.unlock()
    }

    private func currentInterval() -> UInt64 {
        lock.lock(); defer { lock.unlock() }
        return intervalNanoseconds
    }

    private func recordThreadCPU() {
        var now = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0 else { return }
        lock.lock(); defer { lock.unlock() }
        threadCPUSeconds = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private func takeEarlyWake() -> Bool {
        lock.lock(); defer { lock.unlock() }
        let woken = wokenEarly
        wokenEarly = false
        return woken
    }

    private func shouldStop() -> Bool {
        lock.lock(); defer { lock.unlock() }
        return stopping
    }
}
