import Foundation
import Synchronization
import VigilCore

/// Prunes raw events older than the retention period in the background, while ingest runs:
/// small batches (``ServerStore/pruneEvents(projectID:type:before:limit:)``, each one short
/// transaction of at most `batchRows` rows), a pause between batches so ingest's transactions
/// are never queued behind a long run of deletes, and a longer sleep once nothing is left.
/// The pause is at least `pauseSeconds` and at least ``busyShare`` (4) times as long as the
/// batch took, so pruning holds the database (SQLite's one writer) at most a fifth of the time
/// and backs off by itself when the database is busy and its batches slow down.
///
/// The age is the event's own time (`occurred_at`, what every chart and roll-up day uses),
/// against this server's clock. Roll-ups, sketches and issues stay; see
/// ``ServerStore/pruneEvents(projectID:type:before:limit:)`` for what the counts mean after.
///
/// Threading: one thread of its own; ``stop()`` from any thread waits for it.
public final class RetentionPruner: Sendable {
    private let store: ServerStore
    private let retentionSeconds: Double
    private let batchRows: Int
    private let pauseSeconds: Double
    private let idleSeconds: Double
    private let clock: any VigilClock
    private let metrics: ServerMetrics
    private let log: @Sendable (String) -> Void
    private let state = Mutex((running: false, stopping: false))
    private let condition = NSCondition()
    private let finished = DispatchGroup()

    /// How many times a batch's own duration the pause after it lasts at least.
    public static let busyShare = 4.0

    /// A pruner keeping `days` of raw events (fractions allowed, for tests); `batchRows` rows
    /// per transaction, `pauseSeconds` between batches, `idleSeconds` between passes that found
    /// nothing to prune.
    public init(store: ServerStore, days: Double, batchRows: Int = 200, pauseSeconds: Double = 0.05, idleSeconds: Double = 60,
                clock: any VigilClock = SystemClock(), metrics: ServerMetrics = ServerMetrics(),
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.retentionSeconds = max(0, days) * 86_400
        self.batchRows = max(1, batchRows)
        self.pauseSeconds = max(0, pauseSeconds)
        self.idleSeconds = max(0.01, idleSeconds)
        self.clock = clock
        self.metrics = metrics
        self.log = log
    }

    /// One pass: prunes every project and event type in batches until nothing older than the
    /// cutoff is left (or ``stop()`` was called); returns the events deleted, the batches
    /// (transactions) that deleted them, and the most one batch deleted.
    @discardableResult
    public func prunePass() throws -> (events: Int, batches: Int, largestBatch: Int) {
        let cutoff = clock.wallNow().addingTimeInterval(-retentionSeconds)
        var events = 0, batches = 0, largest = 0
        for project in try store.projects() {
            for type in EventType.allCases.map(\.rawValue) {
                while true {
                    let started = DispatchTime.now().uptimeNanoseconds
                    let deleted = try store.pruneEvents(projectID: project.id, type: type, before: cutoff, limit: batchRows)
                    let took = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                    guard deleted > 0 else { break }
                    events += deleted
                    batches += 1
                    largest = max(largest, deleted)
                    metrics.recordPruned(deleted)
                    if deleted < batchRows { break }
                    if !pause(pauseSeconds > 0 ? max(pauseSeconds, took * Self.busyShare) : 0) { return (events, batches, largest) }
                }
            }
        }
        return (events, batches, largest)
    }

    /// Starts the background thread.
    public func start() {
        let started = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            state.stopping = false
            return true
        }
        guard started else { return }
        finished.enter()
        let thread = Thread { [self] in
            var failures = 0
            while !isStopping {
                do {
                    try prunePass()
                    failures = 0
                } catch {
                    failures += 1
                    if failures == 1 || failures % 100 == 0 { log("pruning old events failed (\(failures) in a row): \(error)") }
                }
                _ = pause(idleSeconds)
            }
            finished.leave()
        }
        thread.name = "vigil-retention"
        thread.start()
    }

    /// Stops the thread after its current batch and waits for it.
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.running = false }
            state.stopping = true
            return state.running
        }
        guard wasRunning else { return }
        condition.lock()
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// Waits `seconds` or until ``stop()``; false when stopping.
    private func pause(_ seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if isStopping { return false }
        if seconds > 0 { _ = condition.wait(until: Date().addingTimeInterval(seconds)) }
        return !isStopping
    }
}
