import Foundation
import VigilCore

/// Requests in flight, keyed by the adapter's task key, so that facts arriving through
/// different hooks merge into one observation: on Apple platforms the task's creation or
/// `resume` (start time, request, trace context), its metrics (phases, bytes, protocol) and its
/// completion (response, error) arrive separately and in any order, and are joined by task
/// identifier.
///
/// Holds only values, never the task object, so nothing is retained past completion; bounded
/// by ``capacity`` (the oldest entry is forgotten and counted when it overflows). Not
/// thread-safe: the adapter confines it to one queue or lock.
public struct NetworkTaskLedger<Key: Hashable> {
    /// What is known about one request so far.
    public struct Entry {
        /// Monotonic start, for the total when no metrics come.
        public var startInstant: MonotonicInstant
        /// Wall-clock start.
        public var start: Date
        /// Method, URL and headers as sent, status and bytes as known; completed by the hooks.
        public var observation: NetworkObservation
        /// Whether the task finished (completion seen).
        public var completed = false
        /// Whether the task's metrics arrived.
        public var hasMetrics = false
        /// When the completion was seen, while the metrics are still awaited.
        var completedAt: MonotonicInstant?
        /// Insertion order, for eviction.
        var order: UInt64
    }

    /// Entries kept at most.
    public let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var nextOrder: UInt64 = 0
    /// Entries forgotten because the ledger was full.
    public private(set) var evicted: UInt64 = 0

    /// An empty ledger holding at most `capacity` entries.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Entries in flight.
    public var count: Int { entries.count }

    /// Starts following a request; a key already followed keeps its first start (the
    /// `didCreateTask` hook and the `resume` hook may both report the same task).
    public mutating func begin(_ key: Key, observation: NetworkObservation, at instant: MonotonicInstant) {
        guard entries[key] == nil else { return }
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.order < $1.value.order })?.key {
            entries.removeValue(forKey: oldest)
            evicted &+= 1
        }
        entries[key] = Entry(startInstant: instant, start: observation.start, observation: observation, order: nextOrder)
        nextOrder &+= 1
    }

    /// Whether `key` is followed.
    public func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// Adds the metrics' facts; returns the finished observation when the completion was
    /// already seen.
    public mutating func metrics(_ key: Key, _ update: (inout NetworkObservation) -> Void) -> NetworkObservation? {
        guard var entry = entries[key] else { return nil }
        update(&entry.observation)
        entry.hasMetrics = true
        return settle(key, entry)
    }

    /// Adds the completion's facts (response, error) at `instant`; returns the finished
    /// observation when metrics were already seen or `waitForMetrics` is false (platforms or
    /// tasks that deliver none).
    public mutating func complete(_ key: Key, at instant: MonotonicInstant, waitForMetrics: Bool,
                                  _ update: (inout NetworkObservation) -> Void) -> NetworkObservation? {
        guard var entry = entries[key] else { return nil }
        update(&entry.observation)
        if !entry.hasMetrics {
            entry.observation.marks.end = max(0, instant.milliseconds(since: entry.startInstant))
        }
        entry.completed = true
        entry.completedAt = instant
        if !waitForMetrics { entry.hasMetrics = true }
        return settle(key, entry)
    }

    /// Finishes, without metrics, every completed request whose metrics have not come within
    /// `maximumWaitMs` of its completion (metrics and completion arrive on different queues,
    /// and a task whose delegate is not Vigil's may never deliver any).
    public mutating func expire(at instant: MonotonicInstant, maximumWaitMs: Double) -> [NetworkObservation] {
        var finished: [NetworkObservation] = []
        for (key, entry) in entries {
            guard entry.completed, !entry.hasMetrics, let completedAt = entry.completedAt,
                  instant.milliseconds(since: completedAt) >= maximumWaitMs else { continue }
            entries.removeValue(forKey: key)
            finished.append(entry.observation)
        }
        return finished.sorted { $0.start < $1.start }
    }

    /// Forgets `key` (an excluded session, a cancelled hook) without an observation.
    public mutating func discard(_ key: Key) {
        entries.removeValue(forKey: key)
    }

    private mutating func settle(_ key: Key, _ entry: Entry) -> NetworkObservation? {
        if entry.completed && entry.hasMetrics {
            entries.removeValue(forKey: key)
            return entry.observation
        }
        entries[key] = entry
        return nil
    }
}
