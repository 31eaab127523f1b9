import Foundation
import Synchronization
import VigilCore

/// The background worker pool that turns stored events into results: each batch is one
/// transaction that claims waiting events, analyzes them (stack → images → symbols → in-app
/// frames → fingerprint), and writes issues, roll-ups and the events' new state.
///
/// Because claiming and writing share the transaction, an event is processed exactly once even
/// with several workers or several servers on one PostgreSQL database (claimed rows are locked
/// and skipped by the others); a failed batch rolls back and its events are claimed again.
///
/// Threading: safe to share. Workers are plain threads (the work is blocking database I/O);
/// ``wake()`` after an ingest shortens the lag, and workers also poll, so events stored by
/// another server are found too.
public final class EventProcessor: Sendable {
    private let store: ServerStore
    private let symbols: SymbolTableCache
    private let crashAnalyzer: (any CrashAnalyzer)?
    private let policy: InAppPolicy
    private let metrics: ServerMetrics
    private let clock: any VigilClock
    private let batchSize: Int
    private let log: @Sendable (String) -> Void
    private let transitionHandler: IssueTransitionHandler?
    private let rows: EventRowContent
    private let rollups: RollupScope
    private let condition = NSCondition()
    /// Serializes this server's workers on SQLite, where batches are read outside a transaction.
    private let processingLock = NSLock()
    private let state = Mutex(WorkerState())
    private let finished = DispatchGroup()
    /// Ingest requests whose events are stored already processed, committed in groups.
    private let ingestCommits = GroupCommitQueue<ProcessedInsert, IngestCommit>()
    private let journal: (any IngestJournal)?

    /// What one request's share of a processed-ingest commit gave.
    private struct IngestCommit {
        /// Ids newly stored.
        var stored: Set<String>
        /// When (ms since 1970).
        var processedAt: Int64
        /// Whether the journal holds them too.
        var journaled: Bool
    }

    private struct WorkerState {
        var running = false
        var wakeups = 0
    }

    /// A processor for `store`; `transitionHandler` receives every processing transaction's
    /// issue transitions inside it (``IssueTransitionHandler``). `rows` says how much of each
    /// event processing at ingest keeps in `apm_event` (``EventRowContent``; outlines when the
    /// events also go to ClickHouse), `rollups` which roll-ups every processing transaction
    /// writes (``RollupScope``; only those the main database reads itself when the events also
    /// go to ClickHouse).
    public convenience init(store: ServerStore, symbols: SymbolTableCache, crashAnalyzer: (any CrashAnalyzer)? = nil,
                            policy: InAppPolicy = InAppPolicy(), metrics: ServerMetrics = ServerMetrics(),
                            clock: any VigilClock = SystemClock(), batchSize: Int = 250,
                            log: @escaping @Sendable (String) -> Void = { _ in }, transitionHandler: IssueTransitionHandler? = nil,
                            rows: EventRowContent = .whole, rollups: RollupScope = .all) {
        self.init(store: store, symbols: symbols, crashAnalyzer: crashAnalyzer, policy: policy, metrics: metrics, clock: clock,
                  batchSize: batchSize, log: log, transitionHandler: transitionHandler, rows: rows, rollups: rollups, journal: nil)
    }

    /// As the public initializer, with a `journal` (the ClickHouse spool) written while each
    /// processed-ingest group commits (``IngestJournal``).
    init(store: ServerStore, symbols: SymbolTableCache, crashAnalyzer: (any CrashAnalyzer)?,
         policy: InAppPolicy, metrics: ServerMetrics, clock: any VigilClock, batchSize: Int,
         log: @escaping @Sendable (String) -> Void, transitionHandler: IssueTransitionHandler?,
         rows: EventRowContent, rollups: RollupScope, journal: (any IngestJournal)?) {
        self.store = store
        self.journal = journal
        self.rows = rows
        self.rollups = rollups
        self.transitionHandler = transitionHandler
        self.symbols = symbols
        self.crashAnalyzer = crashAnalyzer
        self.policy = policy
        self.metrics = metrics
        self.clock = clock
        self.batchSize = max(1, batchSize)
        self.log = log
    }

    /// Processes one batch; returns how many events it processed (0 when none were waiting).
    ///
    /// PostgreSQL: claim, analyze and write in one transaction (claimed rows stay locked, so
    /// other workers and servers skip them). SQLite has one writer for the whole file, and
    /// holding it while stacks are symbolicated would stall ingest: the batch is read and
    /// analyzed outside the write lock, under a lock that serializes this server's processing
    /// workers, and only the results are written in a short transaction. (An SQLite file is
    /// served by one `vigil serve`; several servers need PostgreSQL.)
    ///
    /// With the events also on ClickHouse (a journal), the batch's issue links
    /// (``issueLinks(_:analyses:)``) are written to the spool before its transaction commits and
    /// published after.
    @discardableResult
    public func processBatch() throws -> Int {
        let (count, lags): (Int, [Double])
        var staged: (any StagedJournalRows)?
        do {
            if store.dialect == .postgres {
                (count, lags) = try store.database.write { connection -> (Int, [Double]) in
                    // A transaction retried (a deadlock, a lost connection) stages its links again.
                    staged?.discard()
                    staged = nil
                    let pending = try ServerStore.claimPending(on: connection, limit: batchSize)
                    guard !pending.isEmpty else { return (0, []) }
                    let analyses = analyze(pending, connection: connection)
                    staged = try stageLinks(pending, analyses: analyses)
                    return (pending.count, try write(analyses, pending: pending, on: connection))
                }
            } else {
                processingLock.lock()
                defer { processingLock.unlock() }
                let (pending, analyses) = try store.database.read { connection -> ([PendingEvent], [EventAnalysis]) in
                    let pending = try ServerStore.claimPending(on: connection, limit: batchSize)
                    return (pending, analyze(pending, connection: connection))
                }
                guard !pending.isEmpty else { return 0 }
                staged = try stageLinks(pending, analyses: analyses)
                lags = try store.database.write { connection in try write(analyses, pending: pending, on: connection) }
                count = pending.count
            }
        } catch {
            staged?.discard()
            throw error
        }
        if let staged {
            do {
                try staged.publish()
            } catch {
                log("the event spool could not take a processed batch's issue links: \(error)")
            }
        }
        if count > 0 { metrics.recordProcessed(lags: lags) }
        return count
    }

    /// The link rows that keep ClickHouse's issue membership (``ClickHouseSchema/issueLinkType``)
    /// equal to the main database's once `analyses` are written: an event processed for the
    /// first time joins its issue (its event row was spooled without one, stored waiting); a
    /// re-processed event whose fingerprint changed leaves its former issue and joins the new
    /// one. An event left without an issue keeps the one it had, as in the main database.
    static func issueLinks(_ pending: [PendingEvent], analyses: [EventAnalysis]) -> [(id: String, prefix: Data)] {
        var rows: [(id: String, prefix: Data)] = []
        for (event, analysis) in zip(pending, analyses) {
            guard let fingerprint = analysis.issue?.fingerprint.value else { continue }
            let former = event.isReprocessing ? event.fingerprint : nil
            guard former != fingerprint else { continue }
            if let former { rows.append((event.id, ClickHouseEventRow.link(event, fingerprint: former, linked: false))) }
            rows.append((event.id, ClickHouseEventRow.link(event, fingerprint: fingerprint, linked: true)))
        }
        return rows
    }

    /// Stages ``issueLinks(_:analyses:)`` in the journal, when there is one and they are any.
    private func stageLinks(_ pending: [PendingEvent], analyses: [EventAnalysis]) throws -> (any StagedJournalRows)? {
        guard let journal else { return nil }
        let rows = Self.issueLinks(pending, analyses: analyses)
        return rows.isEmpty ? nil : try journal.stage(rows)
    }

    /// Analyzes `pending`, reading missing symbol tables through `connection`, or (nil) through
    /// a connection taken only for such a read.
    private func analyze(_ pending: [PendingEvent], connection: (any DatabaseConnection)?) -> [EventAnalysis] {
        var analyses: [EventAnalysis] = []
        analyses.reserveCapacity(pending.count)
        for event in pending {
            let tables = connection.map { symbols.view(projectID: event.projectID, connection: $0, bypassNegative: event.isReprocessing) }
                ?? symbols.view(projectID: event.projectID, database: store.database, bypassNegative: event.isReprocessing)
            analyses.append(EventAnalyzer(policy: policy, tables: tables, crashAnalyzer: crashAnalyzer).analyze(event))
        }
        return analyses
    }

    /// Writes a batch's results; returns the lags (seconds) of its first-time events.
    private func write(_ analyses: [EventAnalysis], pending: [PendingEvent], on connection: any DatabaseConnection) throws -> [Double] {
        let processedAt = ServerStore.millis(clock.wallNow())
        try ServerStore.apply(ProcessingBatch(analyses, rollups: rollups), on: connection, now: processedAt, onTransitions: transitionHandler)
        return pending.filter { !$0.isReprocessing }.map { Double(processedAt - $0.receivedAt) / 1000 }
    }

    /// Processing at ingest, first half: analyzes freshly ingested events on the calling thread
    /// from `contents`, the payloads and images ingest decoded (`contents[i]` belongs to
    /// `records[i]`; ids distinct). All CPU, no connection held (the symbol tables are nearly
    /// always cached), so a caller can bound how many run at once (``EventIngestor``'s gate).
    /// Cost: the analysis (symbol lookups for crashes and hangs).
    ///
    /// ``commitAnalyzed(_:)`` then inserts each row once with its results, in the transaction
    /// that updates their issues and roll-ups. The worker pool stays for everything else: events
    /// stored by a server that does not process (`--workers 0`), re-processing after symbols
    /// arrive, and failed batches.
    func analyzed(projectID: Int64, records: [EventRecord], contents: [DecodedContent], receivedAt: Date) -> ProcessedInsert {
        precondition(records.count == contents.count, "one decoded content per record")
        let received = ServerStore.millis(receivedAt)
        var pending: [PendingEvent] = []
        pending.reserveCapacity(records.count)
        for (record, content) in zip(records, contents) {
            pending.append(PendingEvent(projectID: projectID, id: record.id, type: record.type, receivedAt: received,
                                        occurredAt: record.occurredAt, appID: record.appID, appVersion: record.appVersion,
                                        appBuild: record.appBuild, os: record.os, osVersion: record.osVersion,
                                        deviceModel: record.deviceModel, page: record.page, sessionID: record.sessionID,
                                        durationMs: record.durationMs, payloadJSON: record.payloadJSON,
                                        imagesJSON: record.imagesJSON, state: 0, issueID: nil, userKey: record.userKey,
                                        decoded: content))
        }
        let analyses = analyze(pending, connection: nil)
        return ProcessedInsert(projectID: projectID, records: records, analyses: analyses, receivedAt: received)
    }

    /// Processing at ingest, second half: inserts the rows of ``analyzed(projectID:records:contents:receivedAt:)``
    /// with their results, committed together with concurrent callers' (``GroupCommitQueue``).
    /// Returns the ids newly stored (an id the project already has is skipped and counts
    /// nowhere) and how many of them were processed: when that transaction fails, the events are
    /// stored waiting instead, for the workers (which retry and count failures), so a batch is
    /// never refused for its results. With two servers on one PostgreSQL database given the same
    /// batch, the one whose insert finds the other's rows rolls back and retries, so each event
    /// is counted once. Threading: any thread (the HTTP workers); blocks until committed.
    func commitAnalyzed(_ item: ProcessedInsert) throws -> (stored: Set<String>, processed: Int, journaled: Bool) {
        guard !item.records.isEmpty else { return ([], 0, true) }
        let commit: IngestCommit
        do {
            commit = try ingestCommits.submit(item) { [self] group in
                try commitProcessed(group)
            }
        } catch {
            metrics.recordProcessingFailure()
            log("processing at ingest failed, the events wait for the workers: \(error)")
            return (try store.insertEvents(projectID: item.projectID, item.records, receivedAt: ServerStore.date(item.receivedAt)), 0, false)
        }
        let lag = Double(commit.processedAt - item.receivedAt) / 1000
        if !commit.stored.isEmpty { metrics.recordProcessed(lags: Array(repeating: lag, count: commit.stored.count)) }
        return (commit.stored, commit.stored.count, commit.journaled)
    }

    /// One group's transaction: first betting that its events are new (no duplicate query),
    /// then, when some were stored already or by another server meanwhile, again with the check.
    /// The journal, when the items carry its rows, writes them meanwhile and publishes what the
    /// transaction stored once it has committed.
    private func commitProcessed(_ group: [ProcessedInsert]) throws -> [IngestCommit] {
        let write = journal.flatMap { journal in group.allSatisfy { $0.journalRows != nil } ? journal.begin(group) : nil }
        var attempt = 0
        var committed: [(Set<String>, Int64)] = []
        do {
            while true {
                attempt += 1
                do {
                    committed = try store.database.write { connection in
                        let now = ServerStore.millis(clock.wallNow())
                        return try ServerStore.insertProcessed(group, on: connection, now: now, checkDuplicates: attempt > 1,
                                                               onTransitions: transitionHandler, rows: rows, rollups: rollups)
                            .map { ($0, now) }
                    }
                    break
                } catch let conflict as ConcurrentEventInsert {
                    // Rolled back. Another server's transaction has committed (our insert waited
                    // for it), so the next attempt's duplicate check sees its rows.
                    if attempt >= 5 { throw conflict }
                }
            }
        } catch {
            write?.discard()
            throw error
        }
        var journaled = false
        if let write {
            do {
                try write.publish(stored: committed.map(\.0))
                journaled = true
            } catch {
                // Committed, but not spooled: each request spools its events itself (or fails).
                log("the event spool could not take a committed group, its requests spool their events one by one: \(error)")
            }
        }
        return committed.map { IngestCommit(stored: $0.0, processedAt: $0.1, journaled: journaled) }
    }

    /// Processes batches until none is waiting (or `maxBatches` ran); returns the events processed.
    @discardableResult
    public func drain(maxBatches: Int = .max) throws -> Int {
        var total = 0
        for _ in 0..<maxBatches {
            let count = try processBatch()
            total += count
            if count == 0 { break }
        }
        return total
    }

    /// Starts `workers` threads that process until ``stop()``; they wait up to
    /// `pollSeconds` between empty polls.
    public func start(workers: Int, pollSeconds: Double = 0.2) {
        let started = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard started else { return }
        for index in 0..<max(1, workers) {
            finished.enter()
            let thread = Thread { [self] in
                run(pollSeconds: pollSeconds)
                finished.leave()
            }
            thread.name = "vigil-processor-\(index)"
            thread.start()
        }
    }

    /// Tells idle workers that events arrived.
    public func wake() {
        condition.lock()
        state.withLock { $0.wakeups += 1 }
        condition.signal()
        condition.unlock()
    }

    /// Stops the workers after their current batch and waits for them.
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.running = false }
            return state.running
        }
        guard wasRunning else { return }
        condition.lock()
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private var isRunning: Bool { state.withLock { $0.running } }

    private func run(pollSeconds: Double) {
        var failures = 0
        while isRunning {
            do {
                let count = try processBatch()
                failures = 0
                if count > 0 { continue }
            } catch {
                failures += 1
                metrics.recordProcessingFailure()
                if failures == 1 || failures % 100 == 0 { log("processing failed (\(failures) in a row): \(error)") }
                // Back off so a persistent failure does not spin.
                Thread.sleep(forTimeInterval: min(5, 0.05 * Double(failures)))
                continue
            }
            condition.lock()
            let hadWakeup = state.withLock { state -> Bool in
                defer { state.wakeups = 0 }
                return state.wakeups > 0
            }
            if !hadWakeup && isRunning {
                _ = condition.wait(until: Date().addingTimeInterval(pollSeconds))
            }
            condition.unlock()
        }
    }
}
