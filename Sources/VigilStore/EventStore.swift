import Foundation
import VigilCore

/// A durable on-device queue of events: CRC-framed records in segment files under one
/// directory, read by the uploader in batches and deleted only when the server acknowledged
/// them.
///
/// Threading: ``enqueue(_:)`` may be called from any thread and returns at once (a lock and
/// an array append); encoding and file I/O run on the store's own serial queue, which writes
/// whatever accumulated in one `write` call. Critical events (crashes, fatal hangs) are
/// written and `fsync`ed before `enqueue` returns (bounded by
/// ``StoreConfiguration/durableWaitSeconds``); others are synced within
/// ``StoreConfiguration/syncIntervalSeconds``. The methods the uploader calls
/// (``nextBatch(maxEvents:maxBytes:oversizedAbove:)``, ``acknowledge(_:)``…) run
/// synchronously on the store's queue.
///
/// Failure: nothing throws. A full disk or an unwritable directory drops events and counts
/// them (``StoreStatistics``); the app is not disturbed. Opening (recovery) happens on the
/// store's queue right after `init`, so `init` itself does no I/O.
///
/// See `docs/store.md` for the on-disk format.
public final class EventStore: EventSink, @unchecked Sendable {
    /// The directory holding the segment files.
    public let directory: URL
    /// The limits in force.
    public let configuration: StoreConfiguration

    private let queue: DispatchQueue
    private let onQueue = DispatchSpecificKey<Bool>()
    private let inbox: StoreInbox
    private let clock: any VigilClock
    // Confined to `queue`.
    private let log: SegmentLog
    private var lastSync: MonotonicInstant
    private var deferredSyncScheduled = false
    private var lastRetentionCheck: MonotonicInstant
    // Guarded by `stateLock`.
    private let stateLock = NSLock()
    private var closed = false
    private var enqueuedCount = 0
    private var droppedClosed = 0

    /// Opens (or creates) the store in `directory`. Recovery runs on the store's queue; calls
    /// made meanwhile wait behind it.
    public init(directory: URL, configuration: StoreConfiguration = StoreConfiguration(),
                clock: any VigilClock = SystemClock(), fileSystem: any StoreFileSystem = LocalFileSystem()) {
        self.directory = directory
        self.configuration = configuration
        self.clock = clock
        queue = DispatchQueue(label: "dev.vigil.store", qos: .utility)
        inbox = StoreInbox(limit: configuration.pendingLimit)
        log = SegmentLog(directory: directory.path, configuration: configuration, clock: clock, files: fileSystem)
        lastSync = clock.monotonicNow()
        lastRetentionCheck = lastSync
        queue.setSpecific(key: onQueue, value: true)
        queue.async { self.log.open() }
    }

    // MARK: Producing

    /// Stores `event` (``EventSink`` conformance); see ``enqueue(_:)``.
    public func emit(_ event: Event) {
        enqueue(event)
    }

    /// Queues `event` for writing and returns; a critical event (``EventPriority/critical``)
    /// returns only once it is written and `fsync`ed, or after
    /// ``StoreConfiguration/durableWaitSeconds``.
    ///
    /// Returns whether the event was durable on return (always `false` for non-critical
    /// events, which are durable within ``StoreConfiguration/syncIntervalSeconds``). Cost on
    /// the calling thread for non-critical events: one uncontended lock and an array append.
    @discardableResult
    public func enqueue(_ event: Event) -> Bool {
        if EventPriority(of: event) == .critical {
            let waiter = DurableWaiter()
            return submit(.event(event, waiter), critical: true, waiter: waiter)
        }
        return submit(.event(event, nil), critical: false, waiter: nil)
    }

    /// Queues an already encoded event (compact JSON without newlines) with its priority;
    /// same rules as ``enqueue(_:)``.
    @discardableResult
    public func enqueue(encoded payload: Data, priority: EventPriority) -> Bool {
        if priority == .critical {
            let waiter = DurableWaiter()
            return submit(.encoded(payload, priority, waiter), critical: true, waiter: waiter)
        }
        return submit(.encoded(payload, priority, nil), critical: false, waiter: nil)
    }

    /// Blocks until everything enqueued before the call is written and `fsync`ed (at most
    /// `timeoutSeconds`). Returns `false` on timeout or when a write or `fsync` failed.
    @discardableResult
    public func flush(timeoutSeconds: Double = 10) -> Bool {
        if DispatchQueue.getSpecific(key: onQueue) == true { return false }
        let waiter = DurableWaiter()
        let (_, schedule) = inbox.push(.barrier(waiter), force: true)
        if schedule { queue.async { self.drain() } }
        return waiter.wait(seconds: timeoutSeconds)
    }

    private func submit(_ item: StoreInbox.Item, critical: Bool, waiter: DurableWaiter?) -> Bool {
        stateLock.lock()
        enqueuedCount += 1
        if closed {
            droppedClosed += 1
            stateLock.unlock()
            return false
        }
        stateLock.unlock()
        let (admitted, schedule) = inbox.push(item, force: critical)
        if schedule { queue.async { self.drain() } }
        guard admitted, let waiter else { return false }
        // Called from the store's own queue (a sink chain looping back), waiting would
        // deadlock: the item is written with the next drain instead.
        if DispatchQueue.getSpecific(key: onQueue) == true { return false }
        return waiter.wait(seconds: configuration.durableWaitSeconds)
    }

    // MARK: The store's queue

    /// Writes one inbox load, then schedules itself again if more arrived, so that other
    /// work on the queue (uploader calls) interleaves with a producer that never pauses.
    private func drain() {
        var items = inbox.take()
        if items.isEmpty { return }
        process(items)
        inbox.recycle(&items)
        queue.async { self.drain() }
    }

    private func process(_ items: [StoreInbox.Item]) {
        var records: [PreparedRecord] = []
        records.reserveCapacity(items.count)
        var waiters: [DurableWaiter] = []
        for item in items {
            switch item {
            case .event(let event, let waiter):
                if let payload = encode(event) { records.append(PreparedRecord(priority: EventPriority(of: event), payload: payload)) }
                if let waiter { waiters.append(waiter) }
            case .encoded(let payload, let priority, let waiter):
                if accept(payload) { records.append(PreparedRecord(priority: priority, payload: payload)) }
                if let waiter { waiters.append(waiter) }
            case .barrier(let waiter):
                waiters.append(waiter)
            }
        }
        let written = log.append(records)
        let now = clock.monotonicNow()
        var durable = written == records.count
        if !waiters.isEmpty || now.nanoseconds(since: lastSync) >= Int64(configuration.syncIntervalSeconds * 1e9) {
            durable = log.sync() && durable
            lastSync = now
        } else {
            scheduleDeferredSync()
        }
        for waiter in waiters { waiter.finish(durable: durable) }
        if now.nanoseconds(since: lastRetentionCheck) >= 60_000_000_000 {
            lastRetentionCheck = now
            log.enforceRetention()
        }
        log.enforceCap()
    }

    private func encode(_ event: Event) -> Data? {
        let payload = EventJSONWriter.encode(event)
        return accept(payload) ? payload : nil
    }

    private func accept(_ payload: Data) -> Bool {
        if payload.isEmpty {
            log.statistics.droppedUnencodable += 1
            return false
        }
        if payload.count > configuration.maximumRecordBytes {
            log.statistics.droppedOversized += 1
            return false
        }
        return true
    }

    /// Makes sure written events get their `fsync` even when no further event arrives.
    private func scheduleDeferredSync() {
        guard !deferredSyncScheduled else { return }
        deferredSyncScheduled = true
        queue.asyncAfter(deadline: .now() + configuration.syncIntervalSeconds) {
            self.deferredSyncScheduled = false
            self.log.sync()
            self.lastSync = self.clock.monotonicNow()
        }
    }

    // MARK: Consuming (the uploader)

    /// Leases the oldest stored events: at most `maxEvents`, and at most `maxBytes` of
    /// payload (counting one newline per event) unless the first event alone is larger.
    /// Events larger than `oversizedAbove` bytes are left for a later call (used to hold big
    /// uploads while the network is metered). Leased events are not offered again until
    /// ``release(_:)``, ``acknowledge(_:)`` or a new store instance.
    public func nextBatch(maxEvents: Int, maxBytes: Int, oversizedAbove: Int? = nil) -> [StoredRecord] {
        queue.sync { log.lease(maxEvents: max(1, maxEvents), maxBytes: maxBytes, oversizedAbove: oversizedAbove) }
    }

    /// Deletes records the server acknowledged (accepted or rejected). Returns how many were
    /// deleted; unknown or already deleted handles are ignored.
    @discardableResult
    public func acknowledge(_ handles: [RecordHandle]) -> Int {
        queue.sync { log.delete(handles, reason: .acknowledged) }
    }

    /// Returns leased records to the queue so that the next batch offers them again.
    public func release(_ handles: [RecordHandle]) {
        queue.sync { log.release(handles) }
    }

    /// Whether stored events wait that are not leased.
    public var hasStoredEvents: Bool {
        queue.sync { log.hasStoredRecords }
    }

    // MARK: Life cycle and counters

    /// Counters and contents; waits for the store's queue (so for recovery and earlier
    /// writes already taken from the inbox).
    public func statistics() -> StoreStatistics {
        let dropped = inbox.droppedCount
        var snapshot = queue.sync { log.snapshot() }
        snapshot.droppedQueueFull = dropped
        stateLock.lock()
        snapshot.enqueued = enqueuedCount
        snapshot.droppedClosed = droppedClosed
        stateLock.unlock()
        return snapshot
    }

    /// Writes what is pending, syncs, closes the files and releases the directory lock.
    /// Later enqueues are dropped and counted.
    public func close() {
        stateLock.lock()
        let wasClosed = closed
        closed = true
        stateLock.unlock()
        guard !wasClosed else { return }
        if DispatchQueue.getSpecific(key: onQueue) == true { return }
        queue.sync {
            while true {
                var items = inbox.take()
                if items.isEmpty { break }
                process(items)
                inbox.recycle(&items)
            }
            log.sync()
            log.close()
        }
    }
}
