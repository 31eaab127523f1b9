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

        func stage(_ rows: [(id: String, prefix: Data)]) throws -> any StagedJournalRows {
            steps.append("stage \(rows.count) rows")
            return Staged(journal: self)
        }

        struct Staged: StagedJournalRows {
            let journal: RecordingJournal
            func publish() throws {
                let processed = (try? journal.store.eventCounts(projectID: journal.projectID).processed) ?? -1
                journal.steps.append("publish staged with \(processed) processed")
            }
            func discard() { journal.steps.append("discard staged") }
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

    /// A processor for `server`'s store writing `journal`, with `transitions` called in every
    /// processing transaction that decides an issue transition.
    static func processor(_ server: TestServer, journal: RecordingJournal, transitions: @escaping IssueTransitionHandler) -> EventProcessor {
        EventProcessor(store: server.store, symbols: SymbolTableCache(engine: nil), crashAnalyzer: nil, policy: InAppPolicy(),
                       metrics: ServerMetrics(), clock: SystemClock(), batchSize: 250, log: { _ in }, transitionHandler: transitions,
                       rows: .whole, rollups: .all, journal: journal)
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
        let processor = Self.processor(server, journal: journal) { _, _ in
            seenInTransaction.append(journal.begun.wait(timeout: .now() + 10) == .success)
            if failNext.items.count == 1 { throw TestSupportError("transaction fails") }
        }
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

    @Test("a worker batch stages its issue links before its transaction, publishes them once it committed, and discards them when it fails")
    func workerLinksAroundTheCommit() throws {
        let server = try TestServer(.sqlite)
        let projectID = server.project.id
        let journal = RecordingJournal(store: server.store, projectID: projectID)
        let failNext = Collected<Bool>()
        let processor = Self.processor(server, journal: journal) { _, _ in
            journal.steps.append("transaction")
            if !failNext.items.isEmpty { throw TestSupportError("transaction fails") }
        }
        // Stored waiting (no processor at ingest): the workers link them to their issues.
        let ingestor = EventIngestor(store: server.store)
        _ = try ingestor.ingest(try EventJSON.makeEncoder().encode((0..<3).map { crashNow($0) }), projectID: projectID)
        #expect(try processor.processBatch() == 3)
        failNext.append(true)
        var hang = SampleEvents.make(.hang, index: 0)
        hang.id = UUID()
        _ = try ingestor.ingest(try EventJSON.makeEncoder().encode([hang]), projectID: projectID)
        #expect(throws: (any Error).self) { try processor.processBatch() }
        #expect(journal.steps.items == ["stage 3 rows", "transaction", "publish staged with 3 processed",
                                        "stage 1 rows", "transaction", "discard staged"])
    }

    @Test("issue links: a first processing links the event, a re-processing that changes its issue unlinks the old one and links the new, an unchanged one writes nothing")
    func issueLinkRows() throws {
        var event = PendingEvent(projectID: 1, id: "e1", type: "crash", receivedAt: 5, occurredAt: 86_400_000 * 3 + 7, appID: "app",
                                 appVersion: "3.2.0", appBuild: "1", os: "iOS", osVersion: "18.1", deviceModel: "iPhone15,3",
                                 page: "Cart", sessionID: "s1", durationMs: nil, payloadJSON: "{}", imagesJSON: nil, state: 0,
                                 issueID: nil)
        func analysis(_ fingerprint: String?) -> EventAnalysis {
            var analysis = EventAnalysis(event: event)
            analysis.issue = fingerprint.map { value in
                IssueObservation(kind: "crash", fingerprint: IssueFingerprint(kind: "crash", failureClass: "SIGSEGV", frames: [],
                                                                              provisional: false, value: value),
                                 title: "SIGSEGV", subtitle: nil, framesJSON: "[]", symbolicated: true, classification: nil)
            }
            return analysis
        }
        func kinds(_ rows: [(id: String, prefix: Data)]) throws -> [String] {
            try rows.map { row in
                var line = Data()
                ClickHouseEventRow.finish(row.prefix, batchID: 1, into: &line)
                let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
                #expect(row.id == "e1" && object["id"] as? String == "e1" && object["page"] as? String == "Cart" && object["day"] as? Int == 3)
                #expect((object["sum_metric"] as? [Any])?.isEmpty == true, "a link row adds nothing to the roll-ups")
                return "\(object["type"] ?? "") \(object["fingerprint"] ?? "")"
            }
        }
        #expect(try kinds(EventProcessor.issueLinks([event], analyses: [analysis("A")])) == ["issue_link A"])
        #expect(EventProcessor.issueLinks([event], analyses: [analysis(nil)]).isEmpty)
        event.state = 2
        event.fingerprint = "A"
        #expect(try kinds(EventProcessor.issueLinks([event], analyses: [analysis("B")])) == ["issue_unlink A", "issue_link B"])
        #expect(EventProcessor.issueLinks([event], analyses: [analysis("A")]).isEmpty)
        #expect(EventProcessor.issueLinks([event], analyses: [analysis(nil)]).isEmpty, "an event left without an issue keeps its own")
    }
}
