import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// Events processed as ingest stores them (`EventIngestor` with a processor): the same
    /// results as the worker pool's, each event counted once, late symbols still re-process.
    @Suite("processing at ingest")
    struct IngestProcessingTests {
        /// Hangs (symbolicated), a crash and one of every other type, from three sessions.
        static func mixedEvents() -> [Event] {
            let sessions = [UUID(), UUID(), UUID()]
            var events = (0..<9).map { ProcessingTests.hang(index: $0, session: sessions[$0 % 3]) }
            var crash = SampleEvents.make(.crash, index: 2)
            crash.id = UUID()
            events.append(crash)
            for (index, type) in [EventType.network, .frames, .launch, .span, .resource, .log].enumerated() {
                for copy in 0..<5 {
                    var event = SampleEvents.make(type, index: index * 10 + copy, session: sessions[copy % 3])
                    event.id = UUID()
                    events.append(event)
                }
            }
            return events
        }

        static func makeProcessor(_ store: ServerStore, metrics: ServerMetrics = ServerMetrics()) -> EventProcessor {
            EventProcessor(store: store, symbols: SymbolTableCache(engine: TableSymbolication()), crashAnalyzer: VigilReportsAnalyzer(),
                           metrics: metrics)
        }

        static let metrics = ["events", "hang", "crash", "network", "network.errors", "network.ttfb", "frames.windows",
                              "frames.slow", "launch", "span", "resource.cpu", "log"]

        /// What processing left in `store`, in a form two stores can be compared by.
        static func results(_ store: ServerStore, _ project: Project) throws -> [String] {
            var lines: [String] = []
            for issue in try store.issues(projectID: project.id) {
                let detail = try #require(try store.issue(projectID: project.id, id: issue.id))
                lines.append("issue \(issue.fingerprint) \(issue.kind) \(issue.title) events=\(issue.events) users=\(issue.users) "
                             + "symbolicated=\(issue.symbolicated) versions=\(issue.versions) "
                             + "frames=\(detail.frames.compactMap(\.function)) class=\(detail.classification?.category ?? "-")")
            }
            for row in try store.rollupSums(projectID: project.id, metrics: metrics, filter: RollupFilter(byVersion: true, byDay: true)) {
                lines.append("sum \(row.metric) \(row.dimension) \(row.appVersion ?? "") \(row.day ?? 0) \(row.count) \(row.total)")
            }
            for distribution in try store.rollupDistributions(projectID: project.id, metric: "network.total") {
                lines.append("histogram \(distribution.dimension) \(distribution.histogram.counts.sorted { $0.key < $1.key })")
            }
            for missing in try store.missingSymbols(projectID: project.id) {
                lines.append("missing \(missing.debugID) \(missing.events)")
            }
            return lines.sorted()
        }

        @Test("when processing at ingest fails, the batch is stored waiting instead of refused, and the pool processes it later",
              arguments: StoreKind.allCases)
        func failedProcessingFallsBackToWaiting(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "ingest-fallback")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, _) = try store.createProject(name: "shop")
            let events = Self.mixedEvents()
            // A trigger that refuses every issue row makes each processing transaction fail.
            let refuse: String
            let allow: String
            if kind == .sqlite {
                refuse = "CREATE TRIGGER refuse_issues BEFORE INSERT ON issues BEGIN SELECT RAISE(ABORT, 'injected failure'); END;"
                allow = "DROP TRIGGER refuse_issues;"
            } else {
                refuse = "CREATE FUNCTION refuse_issues() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$ "
                    + "LANGUAGE plpgsql; CREATE TRIGGER refuse_issues BEFORE INSERT ON issues FOR EACH ROW EXECUTE FUNCTION refuse_issues();"
                allow = "DROP TRIGGER refuse_issues ON issues; DROP FUNCTION refuse_issues();"
            }
            try store.database.write { try $0.executeScript(refuse) }
            let metrics = ServerMetrics()
            let processor = Self.makeProcessor(store, metrics: metrics)
            let outcome = try EventIngestor(store: store, processor: processor)
                .ingest(try EventJSON.makeEncoder().encode(events), projectID: project.id)
            #expect(outcome.rejected.isEmpty)
            #expect(outcome.stored == events.count && outcome.processed == 0)
            #expect(metrics.prometheusText().contains("vigil_processing_failures_total 1\n"))
            #expect(try store.eventCounts(projectID: project.id) == (pending: events.count, processed: 0, reprocess: 0))
            #expect(try store.issues(projectID: project.id).isEmpty)
            // Once the cause is gone, the pool processes what waited, each event once.
            try store.database.write { try $0.executeScript(allow) }
            #expect(try processor.drain() == events.count)
            #expect(try store.eventCounts(projectID: project.id) == (pending: 0, processed: events.count, reprocess: 0))
            #expect(try store.issues(projectID: project.id).map(\.events).reduce(0, +) == 10)
        }

        @Test("events processed at ingest end as the worker pool leaves them: issues, frames, roll-ups, missing symbols",
              arguments: StoreKind.allCases)
        func sameResultsAsThePool(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "ingest-processing")
            let events = Self.mixedEvents()
            let body = try EventJSON.makeEncoder().encode(events)
            var results: [[String]] = []
            var storedEvents: [[String]] = []
            for atIngest in [false, true] {
                let store = try kind.makeStore(in: directory)
                defer { store.database.close() }
                let (project, _) = try store.createProject(name: "shop")
                try store.storeSymbols(projectID: project.id, try TableSymbolication.slices([TableSymbolication.sampleUpload()]))
                let metrics = ServerMetrics()
                let processor = Self.makeProcessor(store, metrics: metrics)
                let outcome = try EventIngestor(store: store, processor: atIngest ? processor : nil).ingest(body, projectID: project.id)
                #expect(outcome.rejected.isEmpty && outcome.stored == events.count)
                #expect(outcome.processed == (atIngest ? events.count : 0))
                if atIngest {
                    #expect(try store.eventCounts(projectID: project.id) == (pending: 0, processed: events.count, reprocess: 0))
                    #expect(try processor.drain() == 0, "nothing is left for the pool")
                } else {
                    #expect(try processor.drain() == events.count)
                }
                #expect(metrics.processingLag(quantile: 1) != nil)
                results.append(try Self.results(store, project))
                storedEvents.append(try events.map { event in
                    let stored = try #require(try store.storedEvent(projectID: project.id, id: event.id.uuidString))
                    return "\(stored.state) \(stored.fingerprint ?? "-") \(stored.issueID != nil) \(stored.framesJSON ?? "-")"
                })
            }
            #expect(results[0].contains { $0.hasPrefix("issue ") && $0.contains("events=9 users=3 symbolicated=true") })
            #expect(results[1] == results[0])
            #expect(storedEvents[1] == storedEvents[0])
        }

        @Test("a batch posted twice is stored, counted and rolled up once", arguments: StoreKind.allCases)
        func duplicatesCountOnce(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "ingest-processing")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, _) = try store.createProject(name: "shop")
            let ingestor = EventIngestor(store: store, processor: Self.makeProcessor(store))
            let events = Self.mixedEvents()
            let first = try ingestor.ingest(try EventJSON.makeEncoder().encode(events), projectID: project.id)
            let before = try Self.results(store, project)
            // The second body repeats every event, one twice within itself, and adds one new event.
            var extra = SampleEvents.make(.log, index: 99)
            extra.id = UUID()
            let second = try ingestor.ingest(try EventJSON.makeEncoder().encode(events + [events[0], extra]), projectID: project.id)
            #expect(first.stored == events.count)
            #expect(second.stored == 1 && second.processed == 1 && second.duplicates == events.count + 1)
            let after = try Self.results(store, project)
            #expect(after.filter { $0.hasPrefix("issue ") } == before.filter { $0.hasPrefix("issue ") })
            let logs = try store.rollupSums(projectID: project.id, metrics: ["log"]).reduce(0) { $0 + $1.count }
            #expect(logs == 6)
            let total = try store.rollupSums(projectID: project.id, metrics: ["events"]).reduce(0) { $0 + $1.count }
            #expect(total == Int64(events.count + 1))
        }

        @Test("late symbols re-process events that were processed at ingest", arguments: StoreKind.allCases)
        func lateSymbolsAfterIngestProcessing(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "ingest-processing")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, _) = try store.createProject(name: "shop")
            let processor = Self.makeProcessor(store)
            let events = (0..<4).map { ProcessingTests.hang(index: $0) }
            _ = try EventIngestor(store: store, processor: processor).ingest(try EventJSON.makeEncoder().encode(events),
                                                                             projectID: project.id)
            let before = try store.issues(projectID: project.id)
            #expect(!before.isEmpty && before.allSatisfy { !$0.symbolicated })
            #expect(try store.missingSymbols(projectID: project.id).first { $0.debugID == SampleEvents.mainImage.id }?.events == 4)
            let requeued = try store.storeSymbols(projectID: project.id, try TableSymbolication.slices([TableSymbolication.sampleUpload()]))
            #expect(requeued == 4)
            #expect(try processor.drain() == 4)
            let after = try store.issues(projectID: project.id)
            #expect(after.count == 1)
            #expect(after.first?.events == 4 && after.first?.symbolicated == true)
            let hangs = try Insights(store: store).hangs(projectID: project.id)
            #expect(hangs.reduce(0) { $0 + $1.hangs } == 4)
        }

        @Test("two servers' ingest given the same batches at once stores and counts every event once",
              arguments: StoreKind.allCases)
        func concurrentServersCountOnce(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "ingest-processing")
            let location = try kind.freshLocation(in: directory)
            // PostgreSQL: two connections pools, as two servers have. SQLite: one file, one server.
            let first = try ServerStore.open(location, connections: 4)
            defer { first.database.close() }
            let second = kind == .postgres ? try ServerStore.open(location, connections: 4) : first
            defer { if kind == .postgres { second.database.close() } }
            let (project, _) = try first.createProject(name: "shop")
            let metrics = [ServerMetrics(), ServerMetrics()]
            let ingestors = zip([first, second], metrics).map { store, metrics in
                EventIngestor(store: store, processor: Self.makeProcessor(store, metrics: metrics))
            }
            let sessions = (0..<5).map { _ in UUID() }
            let events: [Event] = (0..<600).map { index in
                if index % 6 == 0 { return ProcessingTests.hang(index: 1, session: sessions[index % 5]) }
                var event = SampleEvents.make([.network, .frames, .launch, .log][index % 4], index: index)
                event.id = UUID()
                return event
            }
            let bodies = try stride(from: 0, to: events.count, by: 30).map {
                try EventJSON.makeEncoder().encode(Array(events[$0..<min($0 + 30, events.count)]))
            }
            let failures = Collected<String>()
            // Four clients: each server gets every batch, from two clients in opposite orders.
            DispatchQueue.concurrentPerform(iterations: 4) { client in
                let order = client / 2 == 0 ? Array(bodies.indices) : Array(bodies.indices.reversed())
                for index in order where index % 2 == client % 2 {
                    do {
                        let outcome = try ingestors[client / 2].ingest(bodies[index], projectID: project.id)
                        if !outcome.rejected.isEmpty { failures.append("\(outcome.rejected)") }
                    } catch {
                        failures.append("\(error)")
                    }
                }
            }
            #expect(failures.items.isEmpty, "\(failures.items)")
            #expect(try first.eventCounts(projectID: project.id) == (pending: 0, processed: events.count, reprocess: 0))
            let processed = metrics.map(\.processedEvents)
            #expect(processed.reduce(0, +) == events.count, "\(processed)")
            let counted = try first.rollupSums(projectID: project.id, metrics: ["events"]).reduce(0) { $0 + $1.count }
            #expect(counted == Int64(events.count))
            let issues = try first.issues(projectID: project.id)
            #expect(issues.count == 1)
            #expect(issues.first?.events == 100)
            #expect(issues.first?.users == Int64(sessions.count))
        }
    }
}

/// `GroupCommitQueue` without a database: who commits what, and what each caller gets.
@Suite("group commit")
struct GroupCommitQueueTests {
    /// Records each commit's items.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var groups: [[Int]] = []
        func add(_ group: [Int]) { lock.lock(); groups.append(group); lock.unlock() }
        var items: [[Int]] { lock.lock(); defer { lock.unlock() }; return groups }
    }

    @Test("callers that arrive during a commit are committed together, each gets its own output, a failing item fails alone")
    func groupsAndIsolation() throws {
        let queue = GroupCommitQueue<Int, Int>()
        let log = Log()
        let results = Collected<String>()
        let firstStarted = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        @Sendable func commit(_ items: [Int]) throws -> [Int] {
            log.add(items)
            if items == [1] {
                firstStarted.signal()
                release.wait()
            }
            if items.contains(3) && items.count > 1 { throw GroupCommitError(message: "3 spoils its group") }
            if items == [3] { throw GroupCommitError(message: "3 alone") }
            return items.map { $0 * 10 }
        }
        @Sendable func submit(_ item: Int) {
            done.enter()
            Thread {
                do {
                    results.append("\(item)=\(try queue.submit(item, commit: commit))")
                } catch {
                    results.append("\(item) failed")
                }
                done.leave()
            }.start()
        }
        submit(1)
        firstStarted.wait()
        for item in [2, 3, 4] { submit(item) }
        // Wait (without sleeping a fixed time) until the three wait behind the running commit.
        while queue.waitingCount < 3 { sched_yield() }
        release.signal()
        done.wait()
        #expect(Set(results.items) == ["1=10", "2=20", "3 failed", "4=40"])
        let groups = log.items
        #expect(groups.first == [1])
        #expect(groups.count == 5, "\(groups)")
        #expect(Set(groups[1]) == [2, 3, 4])
        #expect(Set(groups.dropFirst(2).map { $0 }) == [[2], [3], [4]])
    }

    @Test("a lone caller commits at once, alone")
    func loneCaller() throws {
        let queue = GroupCommitQueue<String, Int>()
        #expect(try queue.submit("abc") { items in items.map(\.count) } == 3)
        #expect(queue.waitingCount == 0)
    }

    @Test("commits run on the committer thread, at its creator's priority rather than the caller's")
    func committerThread() throws {
        /// What the commit saw.
        final class Seen: @unchecked Sendable {
            var nice: Int32?
            var elsewhere = false
        }
        let queue = GroupCommitQueue<Int, Int32>(name: "vigil-commit-test")
        let creator = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        Thread {
            // A caller at a lower priority, like the HTTP threads.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, min(19, creator + 7))
            let callerThread = pthread_self()
            seen.nice = try? queue.submit(1) { items in
                seen.elsewhere = pthread_equal(pthread_self(), callerThread) == 0
                return items.map { _ in getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
            }
            done.signal()
        }.start()
        done.wait()
        let result = (nice: try #require(seen.nice), elsewhere: seen.elsewhere)
        #expect(result.elsewhere, "the commit ran on the caller's thread")
        #expect(result.nice == creator)
    }

    @Test("stop ends the committer thread after what is queued; later submits fail")
    func stopping() throws {
        let queue = GroupCommitQueue<Int, Int>()
        #expect(try queue.submit(3) { $0 } == 3)
        queue.stop()
        let deadline = Date().addingTimeInterval(10)
        while queue.hasCommitter && Date() < deadline { usleep(1_000) }
        #expect(!queue.hasCommitter)
        #expect(throws: GroupCommitError.self) { try queue.submit(4) { $0 } }
    }
}

/// `AdmissionGate`: how many run at once, and in what order the others are let in.
@Suite("admission gate")
struct AdmissionGateTests {
    @Test("never more than its width inside at once, however many callers")
    func width() {
        /// Callers inside, and the most seen at once.
        final class Count: @unchecked Sendable {
            private let lock = NSLock()
            private var inside = 0
            private(set) var most = 0
            func enter() { lock.lock(); inside += 1; most = max(most, inside); lock.unlock() }
            func leave() { lock.lock(); inside -= 1; lock.unlock() }
        }
        let gate = AdmissionGate(width: 2)
        let count = Count()
        let done = DispatchGroup()
        for _ in 0..<8 {
            done.enter()
            Thread {
                for _ in 0..<20 {
                    gate.run {
                        count.enter()
                        usleep(500)
                        count.leave()
                    }
                }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(count.most == 2)
        #expect(gate.occupancy == 0)
    }

    @Test("callers that queue while it is full are let in in arrival order")
    func arrivalOrder() {
        let gate = AdmissionGate(width: 1)
        let order = Collected<Int>()
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        Thread {
            gate.run { holding.signal(); release.wait() }
            done.leave()
        }.start()
        holding.wait()
        for caller in 1...6 {
            done.enter()
            Thread {
                gate.run { order.append(caller) }
                done.leave()
            }.start()
            // Each caller has taken its ticket before the next one starts.
            while gate.queued < caller { sched_yield() }
        }
        release.signal()
        done.wait()
        #expect(order.items == [1, 2, 3, 4, 5, 6])
    }
}
