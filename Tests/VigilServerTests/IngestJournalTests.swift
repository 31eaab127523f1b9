import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// The journal (the ClickHouse spool) of processing at ingest: written while the main database
/// commits a group, published only for what the commit stored.
@Suite("ingest journal: written during the commit, published after it")
struct IngestJournalTests {
    /// Records what the processor asks of it; its write starts at `begin` and is seen as
    /// under way until published or discarded.
    final class RecordingJournal: IngestJournal, @unchecked Sendable {
        let steps = Collected<String>()
        let begun = DispatchSemaphore(value: 0)
        let store: ServerStore
        let projectID: Int64

        init(store: ServerStore, projectID: Int64) {
            self.store = store
            self.projectID = projectID
        }

        func begin(_ group: [ProcessedInsert]) -> any IngestJournalWrite {
            steps.append("begin \(group.reduce(0) { $0 + ($1.journalRows?.count ?? 0) }) rows")
            begun.signal()
            return Write(journal: self)
        }

        func storedCount() -> Int {
            (try? store.eventCounts(projectID: projectID)).map { $0.pending + $0.processed + $0.reprocess } ?? -1
        }

        struct Write: IngestJournalWrite {
            let journal: RecordingJournal
            func publish(stored: [Set<String>]) throws {
                // Published only once the transaction committed: its rows are visible.
                journal.steps.append("publish \(stored.map(\.count)) with \(journal.storedCount()) stored")
            }
            func discard() { journal.steps.append("discard") }
        }
    }

    static func item(_ processor: EventProcessor, _ events: [Event], projectID: Int64) throws -> ProcessedInsert {
        var records: [EventRecord] = []
        var contents: [DecodedContent] = []
        for slot in try EventBatchDecoder.decode(try EventJSON.makeEncoder().encode(events)) {
            let decoded = try slot.get()
            records.append(try EventIngestor.record(decoded, reencode: false))
            contents.append(DecodedContent(payload: decoded.event.payload, images: decoded.event.images))
        }
        var item = processor.analyzed(projectID: projectID, records: records, contents: contents, receivedAt: Date())
        item.journalRows = records.map { Data($0.id.utf8) }
        return item
    }

    @Test("the journal's write begins before the group's transaction ends, is published after its commit with what it stored, and is discarded when it fails")
    func journalAroundTheCommit() throws {
        let server = try TestServer(.sqlite)
        let projectID = server.project.id
        let journal = RecordingJournal(store: server.store, projectID: projectID)
        let seenInTransaction = Collected<Bool>()
        let failNext = Collected<Bool>()
        // Inside the transaction (a new crash issue is a transition): was the journal's write begun already?
        let processor = EventProcessor(store: server.store, symbols: SymbolTableCache(engine: nil), crashAnalyzer: nil,
                                       policy: InAppPolicy(), metrics: ServerMetrics(), clock: SystemClock(), batchSize: 250,
                                       log: { _ in }, transitionHandler: { _, _ in
                                           seenInTransaction.append(journal.begun.wait(timeout: .now() + 10) == .success)
                                           if failNext.items.count == 1 { throw TestSupportError("transaction fails") }
                                       }, rows: .whole, rollups: .all, journal: journal)
        let events = (0..<3).map { crashNow($0) }
        let first = try processor.commitAnalyzed(try Self.item(processor, events, projectID: projectID))
        #expect(first.stored.count == 3 && first.journaled)
        #expect(seenInTransaction.items == [true], "the write had begun while the transaction ran")
        // Two of three stored before: the journal publishes the new one alone.
        let second = try processor.commitAnalyzed(try Self.item(processor, Array(events[1...]) + [crashNow(9, at: Date())],
                                                                projectID: projectID))
        #expect(second.stored.count == 1 && second.journaled)
        // A transaction that fails (a new hang issue's transition throws): the write is discarded,
        // and the event waits for the workers, unjournaled.
        failNext.append(true)
        var hang = SampleEvents.make(.hang, index: 0)
        hang.id = UUID()
        let third = try processor.commitAnalyzed(try Self.item(processor, [hang], projectID: projectID))
        #expect(!third.journaled && third.processed == 0 && third.stored.count == 1)
        #expect(journal.steps.items == ["begin 3 rows", "publish [3] with 3 stored",
                                        "begin 3 rows", "publish [1] with 4 stored",
                                        "begin 1 rows", "discard"])
    }
}
