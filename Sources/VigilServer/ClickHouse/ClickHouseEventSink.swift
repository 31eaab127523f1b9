import Foundation
import Synchronization

/// Delivers accepted events to the ClickHouse shards: each batch is first written to the
/// durable ``EventSpool`` (before the request is answered), then a shipper thread inserts the
/// spooled batches, oldest first, into every shard's local table, and takes a batch out of the
/// spool only when every shard has confirmed its rows. Processing at ingest writes a group's
/// batch while the main database commits the group (``IngestJournal``): the file is synced
/// meanwhile and renamed into the queue once the transaction has committed.
///
/// **Exactly once without server-side deduplication.** A plain `MergeTree` (ClickHouse 18.16)
/// keeps every insert, even a repeated one. So every row carries its batch's random 63-bit id,
/// each row goes to a fixed shard (a hash of its event id), and a batch's rows for one shard are
/// sent in one `INSERT` block, which ClickHouse stores whole or not at all. When an insert's
/// outcome is unknown (a broken connection, a timeout, a server that died) or the batch was
/// found in the spool at start, the shipper first asks that shard which of the batch ids it
/// already holds (`SELECT batch_id, count() … WHERE batch_id IN (…)`) and sends only the
/// others. A shard that is down blocks the queue (in order) and the spool grows; `/metrics`
/// shows the backlog. With `ReplicatedMergeTree`, ClickHouse's own block deduplication would
/// also drop a repeated block; the check makes it unnecessary.
///
/// Threading: ``append(projectID:records:analyses:stored:receivedAt:)`` from any thread; two
/// spool-writer threads (requests spooled after their commit, and groups spooled during it), one
/// shipper thread. Cost per request: encoding the rows (on the request's thread), and a share of
/// one synced file and one rename per group of concurrent requests; per shipped group
/// (up to ``maximumGroupRows`` rows, at most every ``flushInterval``): one `INSERT` per shard.
public final class ClickHouseEventSink: Sendable {
    /// The backlog and what was delivered, for `/metrics`.
    public struct Status: Sendable {
        /// Batches in the spool.
        public var spooledBatches: Int
        /// Events in those batches.
        public var spooledEvents: Int
        /// Rows confirmed by the shards since start.
        public var insertedRows: Int64
        /// Inserts that failed since start (each retried).
        public var failedInserts: Int64
    }

    /// The cluster written to.
    public let cluster: ClickHouseCluster
    /// The spool.
    public let spool: EventSpool
    /// Least time between two inserts of the shipper, so that a busy server sends few large
    /// blocks (ClickHouse favours about one insert per second per table) rather than many small:
    /// each insert makes a part in the event table and in each roll-up view's table, parts the
    /// shard merges later. So also about how long a dashboard figure lags behind ingest.
    public let flushInterval: Double
    /// Most rows in one group of batches.
    public let maximumGroupRows: Int

    private struct Queued: Sendable {
        var batch: EventSpool.Batch
        var events: Int
        /// Shards that confirmed the batch's rows.
        var done: Set<Int> = []
        /// Shards whose holdings must be checked before sending (recovered at start, or after a
        /// failed attempt).
        var suspect: Set<Int> = []
    }

    private struct State: Sendable {
        var queue: [Queued] = []
        var inserted: Int64 = 0
        var failures: Int64 = 0
        var stopping = false
        var running = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let log: @Sendable (String) -> Void
    private let spoolWrites = GroupCommitQueue<[(id: String, prefix: Data)], Void>(maxItems: 64, name: "vigil-spool")
    /// Writes processed-ingest groups' batches while the main database commits them (``IngestJournal``).
    private let journalWriter = SerialThread(name: "vigil-spool-journal")
    /// Held while a batch is published: batches enter the queue in the order of their sequences.
    private let publishing = NSLock()

    /// A sink over `cluster` spooling to `spool`; batches already in the spool (from an earlier
    /// run) are queued first, each checked on every shard before it is sent again.
    public init(cluster: ClickHouseCluster, spool: EventSpool, flushInterval: Double = ClickHouseLocation.defaultFlushInterval,
                maximumGroupRows: Int = 200_000,
                log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.cluster = cluster
        self.spool = spool
        self.flushInterval = flushInterval
        self.maximumGroupRows = maximumGroupRows
        self.log = log
        let recovered = try spool.pending().map { batch in
            Queued(batch: batch, events: (try? spool.rows(of: batch).count) ?? 0, suspect: Set(0..<cluster.shards.count))
        }
        state.withLock { $0.queue = recovered }
    }

    /// Spools the events of one request that the main database newly stored (`stored`), with
    /// their analyses, stored waiting for the workers (so in no issue yet: the workers link
    /// them); returns when the batch is on disk.
    func append(projectID: Int64, records: [EventRecord], analyses: [EventAnalysis]?, stored: Set<String>, receivedAt: Int64) throws {
        guard !stored.isEmpty else { return }
        var rows: [(id: String, prefix: Data)] = []
        rows.reserveCapacity(stored.count)
        for (index, record) in records.enumerated() where stored.contains(record.id) {
            rows.append((record.id, ClickHouseEventRow.prefix(record, projectID: projectID, receivedAt: receivedAt,
                                                              analysis: analyses.map { $0[index] }, fingerprint: nil)))
        }
        try append(rows: rows)
    }

    /// Spools rows already encoded (``ClickHouseEventRow/prefix(_:projectID:receivedAt:analysis:fingerprint:)``,
    /// each with its event id); returns when the batch is on disk.
    ///
    /// Concurrent requests share one spool file and one `fsync` (``GroupCommitQueue``): the rows
    /// are encoded on the caller's thread, the committer only completes them with the batch id
    /// and writes them.
    func append(rows: [(id: String, prefix: Data)]) throws {
        guard !rows.isEmpty else { return }
        _ = try spoolWrites.submit(rows) { [self] group in
            let batchID = Int64.random(in: 1...Int64.max)
            let count = group.reduce(0) { $0 + $1.count }
            try publish(try spool.writeUnpublished(Self.lines(group.joined(), batchID: batchID), batchID: batchID), events: count)
            return Array(repeating: (), count: group.count)
        }
    }

    /// The spool file's lines for `rows` in batch `batchID`: `EVENT_ID<TAB>JSON_ROW\n` each.
    static func lines<Rows: Sequence>(_ rows: Rows, batchID: Int64) -> Data where Rows.Element == (id: String, prefix: Data) {
        var lines = Data()
        for row in rows {
            lines.append(contentsOf: row.id.utf8)
            lines.append(0x09)
            ClickHouseEventRow.finish(row.prefix, batchID: batchID, into: &lines)
        }
        return lines
    }

    /// Makes `written` a batch of the spool and queues it for the shipper.
    fileprivate func publish(_ written: EventSpool.Unpublished, events: Int) throws {
        publishing.lock()
        defer { publishing.unlock() }
        let batch = try spool.publish(written)
        state.withLock { $0.queue.append(Queued(batch: batch, events: events)) }
        wake.signal()
    }

    /// The backlog and counters.
    public func status() -> Status {
        state.withLock { state in
            Status(spooledBatches: state.queue.count, spooledEvents: state.queue.reduce(0) { $0 + $1.events },
                   insertedRows: state.inserted, failedInserts: state.failures)
        }
    }

    /// Starts the shipper thread.
    public func start() {
        state.withLock { $0.running = true }
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "vigil-clickhouse"
        thread.start()
    }

    /// Stops the shipper after its current attempt; what is spooled stays for the next start.
    public func stop() {
        let running = state.withLock { state -> Bool in
            state.stopping = true
            return state.running
        }
        spoolWrites.stop()
        journalWriter.stop()
        guard running else { return }
        wake.signal()
        finished.wait()
    }

    /// Blocks until the spool is empty or `timeout` seconds passed; whether it emptied.
    public func drain(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if state.withLock({ $0.queue.isEmpty }) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return state.withLock { $0.queue.isEmpty }
    }

    private func run() {
        var backoff = 0.2
        var lastSend = Date.distantPast
        while true {
            let (stopping, empty) = state.withLock { ($0.stopping, $0.queue.isEmpty) }
            if stopping { return }
            if empty {
                _ = wake.wait(timeout: .now() + 1)
                continue
            }
            let since = Date().timeIntervalSince(lastSend)
            if since < flushInterval { Thread.sleep(forTimeInterval: flushInterval - since) }
            lastSend = Date()
            do {
                try shipGroup()
                backoff = 0.2
            } catch {
                state.withLock { $0.failures += 1 }
                log("ClickHouse insert failed, the batches stay spooled and are retried in \(backoff) s: \(error)")
                _ = wake.wait(timeout: .now() + backoff)
                backoff = min(backoff * 2, 5)
            }
        }
    }

    /// Sends the oldest batches (up to ``maximumGroupRows`` rows) to every shard that lacks them.
    private func shipGroup() throws {
        var group: [Queued] = []
        var rowsInGroup = 0
        state.withLock { state in
            for entry in state.queue {
                if !group.isEmpty && rowsInGroup + entry.events > maximumGroupRows { break }
                group.append(entry)
                rowsInGroup += entry.events
            }
        }
        let shards = cluster.shards
        var perShard = Array(repeating: [(sequence: Int64, batchID: Int64, rows: [Data])](), count: shards.count)
        for entry in group {
            var rows = Array(repeating: [Data](), count: shards.count)
            for (id, row) in try spool.rows(of: entry.batch) {
                rows[ClickHouseCluster.shard(of: id, shards: shards.count)].append(row)
            }
            for shard in 0..<shards.count where !entry.done.contains(shard) {
                perShard[shard].append((entry.batch.sequence, entry.batch.batchID, rows[shard]))
            }
        }
        var firstError: Error?
        for shard in 0..<shards.count where !perShard[shard].isEmpty {
            let parts = perShard[shard]
            let suspects = state.withLock { state in
                Set(state.queue.filter { $0.suspect.contains(shard) }.map(\.batch.sequence))
            }
            do {
                var held: [Int64: Int] = [:]
                let checked = parts.filter { suspects.contains($0.sequence) }
                if !checked.isEmpty { held = try cluster.heldBatches(shard: shard, ids: checked.map(\.batchID)) }
                var body = Data()
                var sending = 0
                for part in parts {
                    if let count = held[part.batchID] {
                        if count != part.rows.count {
                            log("ClickHouse shard \(shard + 1) holds \(count) of the \(part.rows.count) rows of batch \(part.batchID); "
                                + "a block is stored whole, so this batch is left as it is")
                        }
                        continue
                    }
                    for row in part.rows { body.append(row) }
                    sending += part.rows.count
                }
                if sending > 0 { try cluster.insert(shard: shard, body) }
                let confirmed = Set(parts.map(\.sequence))
                state.withLock { state in
                    state.inserted += Int64(sending)
                    for index in state.queue.indices where confirmed.contains(state.queue[index].batch.sequence) {
                        state.queue[index].done.insert(shard)
                        state.queue[index].suspect.remove(shard)
                    }
                }
            } catch {
                let attempted = Set(parts.map(\.sequence))
                state.withLock { state in
                    for index in state.queue.indices where attempted.contains(state.queue[index].batch.sequence) {
                        state.queue[index].suspect.insert(shard)
                    }
                }
                if firstError == nil { firstError = error }
            }
        }
        // Batches every shard confirmed leave the spool, oldest first; a batch waiting for a
        // shard keeps the ones after it, so the spool always holds a suffix of what was accepted.
        let complete = state.withLock { state -> [EventSpool.Batch] in
            var removed: [EventSpool.Batch] = []
            while let head = state.queue.first, head.done.count == shards.count {
                removed.append(head.batch)
                state.queue.removeFirst()
            }
            return removed
        }
        for batch in complete { spool.remove(batch) }
        if let firstError { throw firstError }
    }
}

extension ClickHouseEventSink: IngestJournal {
    /// Writes `rows` as one batch, synced and unpublished (``EventSpool/writeUnpublished(_:batchID:)``).
    func stage(_ rows: [(id: String, prefix: Data)]) throws -> any StagedJournalRows {
        let batchID = Int64.random(in: 1...Int64.max)
        return StagedBatch(sink: self, written: try spool.writeUnpublished(Self.lines(rows, batchID: batchID), batchID: batchID),
                           events: rows.count)
    }

    /// A batch ``stage(_:)`` wrote.
    private struct StagedBatch: StagedJournalRows {
        let sink: ClickHouseEventSink
        let written: EventSpool.Unpublished
        let events: Int

        func publish() throws { try sink.publish(written, events: events) }
        func discard() { sink.spool.discard(written) }
    }

    /// Writes the group's rows (every event of every item, in one batch under a fresh id) to the
    /// spool on the journal thread, unpublished, while the caller commits the main database.
    func begin(_ group: [ProcessedInsert]) -> any IngestJournalWrite {
        let write = SpoolJournalWrite(sink: self, group: group)
        journalWriter.run { write.write() }
        return write
    }

    /// One group's spool batch, written while the main database commits it.
    private final class SpoolJournalWrite: IngestJournalWrite, @unchecked Sendable {
        private let sink: ClickHouseEventSink
        private let group: [ProcessedInsert]
        private let written = DispatchSemaphore(value: 0)
        /// Set by ``write()`` before it signals `written`; read only after waiting on it.
        private var result: Result<EventSpool.Unpublished, any Error>?

        init(sink: ClickHouseEventSink, group: [ProcessedInsert]) {
            self.sink = sink
            self.group = group
        }

        /// The items' rows, those of `stored` only when given.
        private func rows(stored: [Set<String>]?) -> [(id: String, prefix: Data)] {
            var rows: [(id: String, prefix: Data)] = []
            for (index, item) in group.enumerated() {
                guard let encoded = item.journalRows else { continue }
                for (record, prefix) in zip(item.records, encoded) where stored?[index].contains(record.id) ?? true {
                    rows.append((record.id, prefix))
                }
            }
            return rows
        }

        /// On the journal thread.
        func write() {
            let batchID = Int64.random(in: 1...Int64.max)
            result = Result { try sink.spool.writeUnpublished(ClickHouseEventSink.lines(rows(stored: nil), batchID: batchID), batchID: batchID) }
            written.signal()
        }

        func publish(stored: [Set<String>]) throws {
            written.wait()
            let unpublished = try result!.get()
            let everyRow = zip(group, stored).allSatisfy { item, stored in stored.count == item.records.count }
            if everyRow {
                try sink.publish(unpublished, events: stored.reduce(0) { $0 + $1.count })
                return
            }
            // Some events were stored before (a batch sent again): the batch is written again
            // with the new ones alone, after the commit, as without the overlap.
            sink.spool.discard(unpublished)
            let fresh = rows(stored: stored)
            guard !fresh.isEmpty else { return }
            let batchID = Int64.random(in: 1...Int64.max)
            try sink.publish(try sink.spool.writeUnpublished(ClickHouseEventSink.lines(fresh, batchID: batchID), batchID: batchID),
                             events: fresh.count)
        }

        func discard() {
            written.wait()
            if case .success(let unpublished) = result { sink.spool.discard(unpublished) }
        }
    }
}
