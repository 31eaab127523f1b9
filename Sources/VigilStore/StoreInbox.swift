import Foundation
import VigilCore

/// The hand-off between the threads that enqueue and the store's queue: a lock-protected
/// array that callers append to in O(1) and the queue takes whole.
///
/// The lock is held only to append or to swap arrays, never during encoding or I/O, which
/// is what keeps `enqueue` at a few hundred nanoseconds.
final class StoreInbox: @unchecked Sendable {
    /// One thing waiting for the store's queue.
    enum Item {
        /// An event to encode and store.
        case event(Event, DurableWaiter?)
        /// An already encoded event.
        case encoded(Data, EventPriority, DurableWaiter?)
        /// A request to make everything before it durable.
        case barrier(DurableWaiter)
    }

    private let lock = NSLock()
    private var items: [Item] = []
    private var spare: [Item] = []
    private var drainScheduled = false
    private let limit: Int
    private var droppedFull = 0

    init(limit: Int) {
        self.limit = max(1, limit)
        items.reserveCapacity(min(self.limit, 4096))
        spare.reserveCapacity(min(self.limit, 4096))
    }

    /// Adds `item`; `force` admits it past the limit (critical events and barriers). Returns
    /// whether it was admitted and whether the caller must schedule a drain.
    @inline(__always)
    func push(_ item: Item, force: Bool) -> (admitted: Bool, scheduleDrain: Bool) {
        lock.lock()
        if !force && items.count >= limit {
            droppedFull += 1
            lock.unlock()
            return (false, false)
        }
        items.append(item)
        let schedule = !drainScheduled
        drainScheduled = true
        lock.unlock()
        return (true, schedule)
    }

    /// Takes everything waiting. When nothing waits, clears the scheduled flag so that the
    /// next push schedules a drain again, and returns an empty array.
    func take() -> [Item] {
        lock.lock()
        defer { lock.unlock() }
        if items.isEmpty {
            drainScheduled = false
            return []
        }
        var taken = spare
        swap(&taken, &items)
        spare = []
        return taken
    }

    /// Gives back a processed array so that its storage is reused.
    func recycle(_ array: inout [Item]) {
        array.removeAll(keepingCapacity: true)
        lock.lock()
        if spare.capacity < array.capacity { swap(&spare, &array) }
        lock.unlock()
    }

    /// Events refused because the inbox was full.
    var droppedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return droppedFull
    }
}

/// Lets a caller wait until the store made its item durable.
final class DurableWaiter: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var succeeded = false

    /// Called once by the store's queue.
    func finish(durable: Bool) {
        lock.lock()
        succeeded = durable
        lock.unlock()
        semaphore.signal()
    }

    /// Waits at most `seconds`; `true` when the item was written and synced in time.
    func wait(seconds: Double) -> Bool {
        guard semaphore.wait(timeout: .now() + seconds) == .success else { return false }
        lock.lock()
        defer { lock.unlock() }
        return succeeded
    }
}
