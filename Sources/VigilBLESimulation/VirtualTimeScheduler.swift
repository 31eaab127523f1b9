import Foundation
import VigilBLE
import VigilCore

/// A ``LinkScheduler`` whose time only moves when told — `advanceTime(by…)`, or `run(until:)`,
/// which jumps straight to each next task — in the manner of swift-nio's embedded event loop.
///
/// Tasks due at the same instant run in the order they were scheduled. Its clock is a
/// ``TestClock`` kept in step with the scheduler's exact nanosecond time, so spans carry
/// virtual wall-clock times. ``checkNoWorkLeft()`` fails when a test ends with timers still
/// pending (work left undone). Single-threaded: use it from one thread.
public final class VirtualTimeScheduler: LinkScheduler {
    /// The clock spans and components read.
    public let testClock: TestClock
    /// Now, exact.
    public private(set) var now: MonotonicInstant
    /// Tasks run so far.
    public private(set) var executedTaskCount = 0

    private struct Entry {
        let deadline: MonotonicInstant
        let order: UInt64
        let task: ScheduledTask
        let work: () -> Void

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : order < other.order
        }
    }

    private var heap: [Entry] = []
    private var order: UInt64 = 0

    /// A scheduler starting at the test clock's readings (monotonic 1 s).
    public init(clock: TestClock = TestClock()) {
        self.testClock = clock
        self.now = clock.monotonicNow()
    }

    public var clock: any VigilClock { testClock }

    @discardableResult
    public func schedule(at deadline: MonotonicInstant, label: String, _ work: @escaping () -> Void) -> ScheduledTask {
        let due = max(deadline, now)
        let task = ScheduledTask(label: label, deadline: due)
        order += 1
        push(Entry(deadline: due, order: order, task: task, work: work))
        return task
    }

    /// Tasks scheduled and not cancelled.
    public var pendingTaskCount: Int { heap.reduce(0) { $0 + ($1.task.isCancelled ? 0 : 1) } }

    /// Labels of pending tasks, earliest first (diagnostics).
    public var pendingTaskLabels: [String] {
        heap.filter { !$0.task.isCancelled }.sorted { $0.precedes($1) }.map { "\($0.task.label) at \($0.deadline)" }
    }

    /// The next pending task's deadline.
    public var nextDeadline: MonotonicInstant? {
        dropCancelledHead()
        return heap.first?.deadline
    }

    /// Moves time forward by `milliseconds`, running every task due on the way in order.
    public func advanceTime(byMilliseconds milliseconds: Double) {
        advanceTime(to: now.advanced(byMilliseconds: milliseconds))
    }

    /// Moves time forward to `instant`, running every task due on the way in order.
    public func advanceTime(to instant: MonotonicInstant) {
        while let next = nextDeadline, next <= instant {
            runNext()
        }
        if instant > now { setNow(instant) }
    }

    /// Runs tasks in order (jumping time to each) until `condition` holds, no task is left, the
    /// next task lies beyond `timeLimitMs` from now, or `maxTasks` ran. Returns whether
    /// `condition` holds.
    @discardableResult
    public func run(until condition: () -> Bool, timeLimitMs: Double, maxTasks: Int = 50_000_000) -> Bool {
        let limit = now.advanced(byMilliseconds: timeLimitMs)
        var ran = 0
        while !condition() {
            guard let next = nextDeadline, next <= limit, ran < maxTasks else { return condition() }
            runNext()
            ran += 1
        }
        return true
    }

    /// Runs every task, jumping time, until none is left or the next lies beyond `timeLimitMs`.
    /// Returns whether the scheduler is idle.
    @discardableResult
    public func runUntilIdle(timeLimitMs: Double = 3_600_000) -> Bool {
        run(until: { self.pendingTaskCount == 0 }, timeLimitMs: timeLimitMs)
    }

    /// Throws ``LeftoverWork`` if any task is still pending: the embedded loop's "work left
    /// undone" check that ends a test.
    public func checkNoWorkLeft() throws(LeftoverWork) {
        let labels = pendingTaskLabels
        guard labels.isEmpty else { throw LeftoverWork(tasks: labels) }
    }

    private func runNext() {
        guard !heap.isEmpty else { return }
        let entry = pop()
        guard !entry.task.isCancelled else { return }
        if entry.deadline > now { setNow(entry.deadline) }
        executedTaskCount += 1
        entry.work()
    }

    private func setNow(_ instant: MonotonicInstant) {
        now = instant
        // The test clock advances by milliseconds in floating point; stepping by the remaining
        // difference each time keeps it within a nanosecond without drift.
        let lag = instant.nanoseconds(since: testClock.monotonicNow())
        if lag > 0 { testClock.advance(byMilliseconds: Double(lag) / 1_000_000) }
    }

    private func dropCancelledHead() {
        while let first = heap.first, first.task.isCancelled { _ = pop() }
    }

    private func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func pop() -> Entry {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count && heap[left].precedes(heap[smallest]) { smallest = left }
                if right < heap.count && heap[right].precedes(heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}

/// Tasks still pending when a test ended.
public struct LeftoverWork: Error, CustomStringConvertible {
    /// Their labels and deadlines.
    public var tasks: [String]
    public var description: String { "\(tasks.count) tasks left undone: \(tasks.prefix(10).joined(separator: "; "))" }
}
