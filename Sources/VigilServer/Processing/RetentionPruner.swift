import Foundation
import Synchronization
import VigilCore

/// Prunes raw events older than the retention period in the background, while ingest runs:
/// small batches (``ServerStore/pruneEvents(projectID:type:before:limit:)``, each one short
/// transaction of at most `batchRows` rows), a pause between batches so ingest's transactions
/// are never queued behind a long run of deletes, and a longer sleep once nothing is left.
/// The pause is at least `pauseSeconds` and at least `pauseFactor` (default ``busyShare``, 4)
/// times as long as the batch took, so pruning holds the database (SQLite's one writer) at
/// most 1 / (1 + factor) of the time (a fifth by default) and backs off by itself when the
/// database is busy and its batches slow down.
///
/// The age is the event's own time (`occurred_at`, what every chart and roll-up day uses),
/// against this server's clock. Roll-ups, sketches and issues stay; see
/// ``ServerStore/pruneEvents(projectID:type:before:limit:)`` for what the counts mean after.
///
/// With an alert horizon it also prunes, in the same batches and pauses, finished alerts
/// (delivered, failed, dropped) and delivery-log rows older than it
/// (``ServerStore/pruneFinishedAlerts(before:limit:)``, ``ServerStore/pruneAlertDeliveries(before:limit:)``).
///
/// Threading: one thread of its own; ``stop()`` from any thread waits for it.
public final class RetentionPruner: Sendable {
    private let store: ServerStore
    private let retentionSeconds: Double?
    private let alertRetentionSeconds: Double?
    private let batchRows: Int
    private let pauseSeconds: Double
    private let pauseFactor: Double
    private let idleSeconds: Double
    private let clock: any VigilClock
    private let metrics: ServerMetrics
    private let log: @Sendable (String) -> Void
    private let state = Mutex((running: false, stopping: false))
    private let condition = NSCondition()
    private let finished = DispatchGroup()

    /// How many times a batch's own duration the pause after it lasts at least, unless told
    /// otherwise (`vigil serve --retention-pause-factor`).
    public static let busyShare = 4.0

    /// A pruner keeping `days` of raw events (nil: keep them all; fractions allowed, for tests)
    /// and `alertDays` of finished alerts and delivery-log rows (nil: keep them all);
    /// `batchRows` rows per transaction, after each batch a pause of at least `pauseSeconds`
    /// and at least `pauseFactor` times the batch's own time, `idleSeconds` between passes
    /// that found nothing to prune.
    public init(store: ServerStore, days: Double?, alertDays: Double? = nil, batchRows: Int = 200, pauseSeconds: Double = 0.05,
                pauseFactor: Double = RetentionPruner.busyShare, idleSeconds: Double = 60,
                clock: any VigilClock = SystemClock(), metrics: ServerMetrics = ServerMetrics(),
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.retentionSeconds = days.map { max(0, $0) * 86_400 }
        self.alertRetentionSeconds = alertDays.map { max(0, $0) * 86_400 }
        self.batchRows = max(1, batchRows)
        self.pauseSeconds = max(0, pauseSeconds)
        self.pauseFactor = pauseFactor.isFinite ? max(0, pauseFactor) : Self.busyShare
        self.idleSeconds = max(0.01, idleSeconds)
        self.clock = clock
        self.metrics = metrics
        self.log = log
    }

    /// What one pass deleted.
    public struct PassResult: Sendable, Hashable {
        /// Raw events.
        public var events = 0
        /// Finished alerts (outbox rows).
        public var alerts = 0
        /// Delivery-log rows.
        public var deliveries = 0
        /// Transactions that deleted something.
        public var batches = 0
        /// The most rows one transaction deleted.
        public var largestBatch = 0

        mutating func add(_ run: Run) {
            batches += run.batches
            largestBatch = max(largestBatch, run.largest)
        }
    }

    /// One pass: prunes every project and event type, then the finished alerts and the
    /// delivery log, in batches until nothing older than the cutoffs is left (or ``stop()`` was
    /// called).
    @discardableResult
    public func prunePass() throws -> PassResult {
        var result = PassResult()
        let now = clock.wallNow()
        if let retentionSeconds {
            let cutoff = now.addingTimeInterval(-retentionSeconds)
            for project in try store.projects() {
                for type in EventType.allCases.map(\.rawValue) {
                    let run = try batches(counted: metrics.recordPruned) {
                        try store.pruneEvents(projectID: project.id, type: type, before: cutoff, limit: batchRows)
                    }
                    result.add(run)
                    result.events += run.deleted
                    if run.stopped { return result }
                }
            }
        }
        if let alertRetentionSeconds {
            let cutoff = now.addingTimeInterval(-alertRetentionSeconds)
            let alerts = try batches(counted: { metrics.recordAlertRowsPruned(outbox: $0, deliveries: 0) }) {
                try store.pruneFinishedAlerts(before: cutoff, limit: batchRows)
            }
            result.add(alerts)
            result.alerts += alerts.deleted
            if alerts.stopped { return result }
            let log = try batches(counted: { metrics.recordAlertRowsPruned(outbox: 0, deliveries: $0) }) {
                try store.pruneAlertDeliveries(before: cutoff, limit: batchRows)
            }
            result.add(log)
            result.deliveries += log.deleted
        }
        return result
    }

    /// What a run of batches of one kind deleted, and whether ``stop()`` cut it short.
    struct Run {
        var deleted = 0
        var batches = 0
        var largest = 0
        var stopped = false
    }

    /// Runs `batch` until it deletes less than a full batch, pausing after each full one;
    /// `counted` gets each batch's rows as soon as they are deleted (the metrics).
    private func batches(counted: (Int) -> Void, _ batch: () throws -> Int) throws -> Run {
        var run = Run()
        while true {
            let started = DispatchTime.now().uptimeNanoseconds
            let deleted = try batch()
            let took = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            guard deleted > 0 else { return run }
            counted(deleted)
            run.deleted += deleted
            run.batches += 1
            run.largest = max(run.largest, deleted)
            if deleted < batchRows { return run }
            if !pause(pauseSeconds > 0 ? max(pauseSeconds, took * pauseFactor) : 0) {
                run.stopped = true
                return run
            }
        }
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
