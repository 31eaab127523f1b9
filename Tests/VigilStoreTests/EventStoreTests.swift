import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport

@Suite("Event store: writing, reading, acknowledging")
struct EventStoreTests {
    @Test("events come back in order, byte for byte, after a reopen")
    func roundTrip() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let events = SampleEvents.oneOfEach() + (0..<50).map { StoreFixtures.log($0) }
        do {
            let store = EventStore(directory: directory.url)
            for event in events { store.enqueue(event) }
            #expect(store.flush())
            #expect(try StoreFixtures.contents(of: store) == events)
            store.close()
        }
        let reopened = EventStore(directory: directory.url)
        defer { reopened.close() }
        #expect(try StoreFixtures.contents(of: reopened) == events)
        let statistics = reopened.statistics()
        #expect(statistics.storedRecords == events.count)
        #expect(statistics.recovery.recordsFound == events.count)
        #expect(statistics.recovery.tornTails == 0 && statistics.recovery.badRecords == 0)
    }

    @Test("a critical event is written and fsynced before enqueue returns")
    func criticalIsDurable() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let store = EventStore(directory: directory.url)
        defer { store.close() }
        #expect(store.enqueue(StoreFixtures.log(1)) == false)
        #expect(store.enqueue(StoreFixtures.crash(2)) == true)
        let statistics = store.statistics()
        #expect(statistics.written == 2)
        #expect(statistics.syncs >= 1)
        // The bytes are in the file, not only in the store's memory.
        let files = StoreFixtures.segmentFiles(directory.url)
        #expect(files.count == 1)
        #expect(StoreFixtures.size(files[0]) == statistics.fileBytes)
    }

    @Test("fatal hangs and crashes are critical, hangs and launches high, logs low unless errors")
    func priorities() {
        #expect(EventPriority(of: SampleEvents.make(.crash, index: 0)) == .critical)
        var fatal = SampleEvents.make(.hang, index: 0)
        if case .hang(var hang) = fatal.payload { hang.kind = .fatal; fatal.payload = .hang(hang) }
        #expect(EventPriority(of: fatal) == .critical)
        #expect(EventPriority(of: SampleEvents.make(.hang, index: 0)) == .high)
        #expect(EventPriority(of: SampleEvents.make(.launch, index: 0)) == .high)
        #expect(EventPriority(of: SampleEvents.make(.network, index: 0)) == .normal)
        #expect(EventPriority(of: StoreFixtures.log(0)) == .low)
        #expect(EventPriority(of: StoreFixtures.log(0, level: .error)) == .normal)
    }

    @Test("acknowledged records are gone after a reopen; released ones are offered again")
    func acknowledgeAndRelease() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let events = (0..<20).map { StoreFixtures.log($0) }
        do {
            let store = EventStore(directory: directory.url)
            for event in events { store.enqueue(event) }
            store.flush()
            let first = store.nextBatch(maxEvents: 8, maxBytes: 1 << 20)
            #expect(first.count == 8)
            // Leased records are not offered twice.
            let second = store.nextBatch(maxEvents: 8, maxBytes: 1 << 20)
            #expect(Set(second.map(\.handle)).isDisjoint(with: first.map(\.handle)))
            #expect(store.acknowledge(first.map(\.handle)) == 8)
            #expect(store.acknowledge(first.map(\.handle)) == 0)
            store.release(second.map(\.handle))
            let again = store.nextBatch(maxEvents: 8, maxBytes: 1 << 20)
            #expect(again.map(\.handle) == second.map(\.handle))
            store.close()
        }
        let reopened = EventStore(directory: directory.url)
        defer { reopened.close() }
        #expect(try StoreFixtures.contents(of: reopened) == Array(events[8...]))
        #expect(reopened.statistics().recovery.recordsAlreadyAcknowledged == 8)
    }

    @Test("a batch stops at the event count or the byte limit, but never comes back empty")
    func batchLimits() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let store = EventStore(directory: directory.url)
        defer { store.close() }
        for index in 0..<10 { store.enqueue(StoreFixtures.log(index)) }
        store.flush()
        let size = try StoreFixtures.contents(of: store).map { try EventJSON.encode($0).count + 1 }.max() ?? 0
        #expect(store.nextBatch(maxEvents: 3, maxBytes: 1 << 20).count == 3)
        #expect(store.nextBatch(maxEvents: 100, maxBytes: size * 2).count == 2)
        #expect(store.nextBatch(maxEvents: 100, maxBytes: 1).count == 1)
    }

    @Test("events over the metered limit are held back while smaller ones flow")
    func oversizedHeld() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let store = EventStore(directory: directory.url)
        defer { store.close() }
        store.enqueue(encoded: Data(("{\"big\":\"" + String(repeating: "x", count: 5000) + "\"}").utf8), priority: .normal)
        store.enqueue(StoreFixtures.log(1))
        store.flush()
        let small = store.nextBatch(maxEvents: 10, maxBytes: 1 << 20, oversizedAbove: 4096)
        #expect(small.count == 1)
        #expect(small.first?.payload.count ?? 0 < 4096)
        #expect(store.nextBatch(maxEvents: 10, maxBytes: 1 << 20, oversizedAbove: 4096).isEmpty)
        #expect(store.nextBatch(maxEvents: 10, maxBytes: 1 << 20).first?.payload.count ?? 0 > 5000)
    }

    @Test("events over the record limit and enqueues after close are dropped and counted")
    func dropsCounted() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let store = EventStore(directory: directory.url, configuration: StoreConfiguration(maximumRecordBytes: 2048))
        store.enqueue(encoded: Data(repeating: UInt8(ascii: "x"), count: 4096), priority: .normal)
        store.enqueue(encoded: Data(), priority: .normal)
        store.flush()
        store.close()
        store.enqueue(StoreFixtures.log(1))
        let statistics = store.statistics()
        #expect(statistics.droppedOversized == 1)
        #expect(statistics.droppedUnencodable == 1)
        #expect(statistics.droppedClosed == 1)
        #expect(statistics.enqueued == 3)
    }

    @Test("a full inbox drops non-critical events and counts them, but admits critical ones")
    func inboxBound() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let store = EventStore(directory: directory.url, configuration: StoreConfiguration(pendingLimit: 4))
        defer { store.close() }
        // An append takes a fraction of a microsecond, encoding on the store's queue tens of
        // microseconds: 10,000 enqueues in a row overflow an inbox of 4.
        let event = StoreFixtures.log(0)
        for _ in 0..<10_000 { store.enqueue(event) }
        #expect(store.enqueue(StoreFixtures.crash(1)))
        store.flush()
        let statistics = store.statistics()
        #expect(statistics.droppedQueueFull > 0)
        #expect(statistics.written + statistics.droppedQueueFull == 10_001)
        #expect(try StoreFixtures.contents(of: store).contains { $0.id == StoreFixtures.crash(1).id })
    }

    @Test("a second store on the same directory is refused and drops what it is given")
    func directoryLock() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let first = EventStore(directory: directory.url)
        defer { first.close() }
        #expect(first.statistics().recovery.directoryUsable)
        let second = EventStore(directory: directory.url)
        defer { second.close() }
        second.enqueue(StoreFixtures.log(1))
        second.flush()
        let statistics = second.statistics()
        #expect(!statistics.recovery.directoryUsable)
        #expect(statistics.droppedUnwritable == 1)
    }
}
