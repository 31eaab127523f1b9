import Dispatch
import VigilCore

/// The production scheduler: a serial `DispatchQueue` (the same queue the CoreBluetooth
/// central delivers its callbacks on) and the system clock.
///
/// Timers are `asyncAfter` on the queue. Every VigilBLE object using this scheduler must only
/// be touched on `queue`; the `@unchecked Sendable` conformance rests on that rule.
public final class DispatchLinkScheduler: LinkScheduler, @unchecked Sendable {
    /// The serial queue everything runs on.
    public let queue: DispatchQueue
    /// The system clock.
    public let clock: any VigilClock

    /// A scheduler on `queue` (serial; created if not given).
    public init(queue: DispatchQueue = DispatchQueue(label: "vigil.ble"), clock: any VigilClock = SystemClock()) {
        self.queue = queue
        self.clock = clock
    }

    public var now: MonotonicInstant { clock.monotonicNow() }

    @discardableResult
    public func schedule(at deadline: MonotonicInstant, label: String, _ work: @escaping () -> Void) -> ScheduledTask {
        let task = ScheduledTask(label: label, deadline: deadline)
        let job = QueueConfinedWork(work)
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(1, deadline.nanoseconds))) {
            if !task.isCancelled { job.run() }
        }
        return task
    }
}

/// A closure that only ever runs on the scheduler's queue; the wrapper carries it across the
/// `@Sendable` boundary of `asyncAfter`.
private struct QueueConfinedWork: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
