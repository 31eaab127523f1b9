import VigilCore

/// Where the link's work runs: one serial context with a clock and timers.
///
/// Everything in VigilBLE — the connection state machine, the transfer sender, command
/// channels — is confined to one scheduler: its methods are called there and its callbacks
/// run there. Production uses ``DispatchLinkScheduler`` (the queue CoreBluetooth delivers on);
/// tests and the simulator use a virtual-time scheduler whose clock only moves when told.
public protocol LinkScheduler: AnyObject {
    /// Now, on the scheduler's monotonic clock.
    var now: MonotonicInstant { get }
    /// The clock behind ``now``, also used to stamp spans with wall time.
    var clock: any VigilClock { get }
    /// Runs `work` on the scheduler at `deadline` (or as soon as possible if it has passed),
    /// after every task due earlier and every task due at the same instant that was scheduled
    /// before it. `label` names the task in diagnostics.
    @discardableResult
    func schedule(at deadline: MonotonicInstant, label: String, _ work: @escaping () -> Void) -> ScheduledTask
}

extension LinkScheduler {
    /// Runs `work` after `nanoseconds`.
    @discardableResult
    public func schedule(afterNanoseconds nanoseconds: UInt64, label: String, _ work: @escaping () -> Void) -> ScheduledTask {
        schedule(at: MonotonicInstant(nanoseconds: now.nanoseconds &+ nanoseconds), label: label, work)
    }

    /// Runs `work` after `milliseconds`.
    @discardableResult
    public func schedule(afterMilliseconds milliseconds: Double, label: String, _ work: @escaping () -> Void) -> ScheduledTask {
        schedule(afterNanoseconds: UInt64(max(0, milliseconds) * 1_000_000), label: label, work)
    }

    /// Runs `work` on the scheduler as soon as possible, never synchronously.
    @discardableResult
    public func execute(label: String, _ work: @escaping () -> Void) -> ScheduledTask {
        schedule(at: now, label: label, work)
    }
}

/// A handle on scheduled work, to cancel it. Cancelling is idempotent and takes effect
/// immediately; a cancelled task never runs.
///
/// Used only on its scheduler's context (checked by convention, like every VigilBLE type).
public final class ScheduledTask: @unchecked Sendable {
    /// What the task is, for diagnostics.
    public let label: String
    /// When it is due.
    public let deadline: MonotonicInstant
    /// Whether ``cancel()`` was called.
    public private(set) var isCancelled = false

    /// A handle; created by schedulers.
    public init(label: String, deadline: MonotonicInstant) {
        self.label = label
        self.deadline = deadline
    }

    /// Prevents the task from running.
    public func cancel() { isCancelled = true }
}

/// Nanoseconds in a millisecond, for timeouts configured in milliseconds.
@inline(__always)
func nanoseconds(milliseconds: Double) -> UInt64 { UInt64(max(0, milliseconds) * 1_000_000) }
