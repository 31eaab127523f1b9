import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport

@Suite("Event store: segment rolling, retention, the size cap and a full disk")
struct SegmentLimitsTests {
    @Test("a segment rolls at its size limit; no file exceeds it unless one record does")
    func rollsAtSize() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let limit = 4096
        let store = EventStore(directory: directory.url, configuration: StoreConfiguration(segmentByteLimit: limit),
                               clock: TestClock())
        defer { store.close() }
        let events = (0..<100).map { StoreFixtures.log($0) }
        for event in events { store.enqueue(event) }
        store.enqueue(encoded: Data(repeating: UInt8(ascii: "x"), count: 6000), priority: .low)
        #expect(store.flush(timeoutSeconds: 60), "written and synced (a loaded disk may take long)")
        let files = StoreFixtures.segmentFiles(directory.url)
        #expect(files.count > 5)
        let sizes = files.map(StoreFixtures.size)
        #expect(sizes.filter { $0 > limit }.count == 1)
        #expect(sizes.max() == 28 + 9 + 6000)
        #expect(store.statistics().segments == files.count)
        let logs = store.nextBatch(maxEvents: 100, maxBytes: Int.max)
        #expect(try logs.map { try EventJSON.decode($0.payload) } == events)
        #expect(store.nextBatch(maxEvents: 100, maxBytes: Int.max).map(\.payload.count) == [6000])
    }

    @Test("a segment rolls at a UTC day boundary")
    func rollsAtDay() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let clock = TestClock()  // 2026-01-01T00:00:00Z
        let store = EventStore(directory: directory.url, clock: clock)
        defer { store.close() }
        store.enqueue(StoreFixtures.log(1))
        #expect(store.flush(timeoutSeconds: 60), "written and synced (a loaded disk may take long)")
        clock.advance(byMilliseconds: 23 * 3_600_000 + 59 * 60_000)
        store.enqueue(StoreFixtures.log(2))
        #expect(store.flush(timeoutSeconds: 60), "written and synced (a loaded disk may take long)")
        #expect(StoreFixtures.segmentFiles(directory.url).count == 1)
        clock.advance(byMilliseconds: 120_000)
        store.enqueue(StoreFixtures.log(3))
        #expect(store.flush(timeoutSeconds: 60), "written and synced (a loaded disk may take long)")
        #expect(StoreFixtures.segmentFiles(directory.url).count == 2)
        #expect(try StoreFixtures.contents(of: store).map(\.id) == [1, 2, 3].map { StoreFixtures.log($0).id })
    }

    @Test("segments older than the retention time are deleted on open and while running, and counted")
    func retention() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let clock = TestClock()
        do {
            let store = EventStore(directory: directory.url, clock: clock)
            for index in 0..<5 { store.enqueue(StoreFixtures.log(index)) }
            #expect(store.flush(timeoutSeconds: 60), "written and synced (a loaded disk may take long)")
            clock.advance(byMilliseconds: 2 * 86_400_000)
            for index in 5..<8 { store.enqueue(StoreFixtures.log(index)) }
            #expect(store.flush(timeoutSeconds: 60), "written and synced (a loaded disk may take long)")
            store.close()
        }
        clock.advance(byMilliseconds: 86_400_000 + 1000)
        let store = EventStore(directory: directory.url, clock: clock)
        defer { store.close() }
        #expect(try StoreFixtures.contents(of: store).map(\.id) == (5..<8).map { StoreFixtures.log($0).id })
        #expect(store.statistics().droppedExpired == 5)
        // While running: the check happens with the next write after a minute has passed.
        clock.advance(byMilliseconds: 2 * 86_400_000)
        store.enqueue(StoreFixtures.log(9))
        #expect(store.flush(timeoutSeconds: 60), "written and synced (a loaded disk may take long)")
        #expect(try StoreFixtures.contents(of: store).map(\.id) == [StoreFixtures.log(9).id])
        #expect(store.statistics().droppedExpired == 8)
    }

    @Test("over the cap, the lowest priority goes first, oldest first, and crashes survive")
    func capDropsByPriority() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let configuration = StoreConfiguration(segmentByteLimit: 8192, totalByteLimit: 48 * 1024)
        let store = EventStore(directory: directory.url, configuration: configuration, clock: TestClock())
        defer { store.close() }
        var crashes: [Event] = []
        var normals: [Event] = []
        for index in 0..<400 {
            if index % 20 == 0 {
                let crash = StoreFixtures.crash(index)
                crashes.append(crash)
                store.enqueue(crash)
            } else if index % 2 == 0 {
                let network = SampleEvents.make(.network, index: index)
                normals.append(network)
                store.enqueue(network)
            } else {
                store.enqueue(StoreFixtures.log(index))
            }
        }
        #expect(store.flush(timeoutSeconds: 60), "written and synced (a loaded disk may take long)")
        let statistics = store.statistics()
        #expect(statistics.fileBytes <= configuration.totalByteLimit)
        let onDisk = StoreFixtures.segmentFiles(directory.url).map(StoreFixtures.size).reduce(0, +)
        #expect(onDisk == statistics.fileBytes)
        let dropped = statistics.droppedForCap
        #expect((dropped[.low] ?? 0) > 0)
        #expect((dropped[.normal] ?? 0) > 0)
        #expect((dropped[.critical] ?? 0) == 0)
        let kept = try StoreFixtures.contents(of: store)
        #expect(Set(crashes.map(\.id)).isSubset(of: kept.map(\.id)))
        // Oldest first within a priority: the normal events that survive are the newest ones.
        let keptNormals = kept.filter { $0.type == .network }.map(\.id)
        #expect(keptNormals == Array(normals.map(\.id).suffix(keptNormals.count)))
        // Every dropped event is accounted for.
        #expect(kept.count + statistics.droppedTotal == 400)
    }

    @Test("handles stay valid across the compaction the cap triggers, also on a disk whose fsync outlasts the durable wait",
          arguments: [false, true])
    func handlesSurviveCompaction(slowDisk: Bool) throws {
        let directory = try TemporaryDirectory(prefix: "store")
        // A slow disk: each fsync (0.2 s) outlasts a critical event's durable wait (0.05 s), as
        // a loaded machine's can outlast the default 2 s.
        let configuration = StoreConfiguration(segmentByteLimit: 4096, totalByteLimit: 24 * 1024,
                                               durableWaitSeconds: slowDisk ? 0.05 : 2)
        let disk = FaultyFileSystem(syncDelaySeconds: slowDisk ? 0.2 : 0)
        let store = EventStore(directory: directory.url, configuration: configuration, clock: TestClock(), fileSystem: disk)
        defer { store.close() }
        for index in 0..<10 { store.enqueue(StoreFixtures.crash(index)) }
        // A crash whose durable wait timed out is still on its way to the disk: a lease taken
        // at once could miss the last one. Everything enqueued is written before the lease.
        #expect(store.flush(timeoutSeconds: 60))
        let leased = store.nextBatch(maxEvents: 10, maxBytes: 1 << 20)
        #expect(leased.count == 10)
        disk.setSyncDelay(0)
        for index in 10..<200 { store.enqueue(StoreFixtures.log(index)) }
        #expect(store.flush(timeoutSeconds: 60), "written and synced (a loaded disk may take long)")
        #expect(store.statistics().droppedForCap[.low] ?? 0 > 0)
        #expect(store.acknowledge(leased.map(\.handle)) == 10)
        let rest = try StoreFixtures.contents(of: store)
        #expect(rest.allSatisfy { $0.type == .log })
        store.close()
        let reopened = EventStore(directory: directory.url, configuration: configuration, clock: TestClock())
        defer { reopened.close() }
        #expect(try StoreFixtures.contents(of: reopened).map(\.id) == rest.map(\.id))
    }

    @Test("a full disk drops events and counts them, leaves no torn record, and recovers when space returns")
    func diskFull() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let files = FaultyFileSystem(budget: 3000)
        let store = EventStore(directory: directory.url, clock: TestClock(), fileSystem: files)
        defer { store.close() }
        var sent: [Event] = []
        for index in 0..<20 {
            let event = StoreFixtures.log(index)
            sent.append(event)
            store.enqueue(event)
            store.flush()
        }
        let full = store.statistics()
        #expect(full.droppedUnwritable > 0)
        #expect(full.written + full.droppedUnwritable == 20)
        #expect(files.refusedWrites > 0)
        files.setBudget(1 << 20)
        store.enqueue(StoreFixtures.log(100))
        store.flush()
        let kept = try StoreFixtures.contents(of: store)
        #expect(kept.count == full.written + 1)
        #expect(kept.last?.id == StoreFixtures.log(100).id)
        store.close()
        let reopened = EventStore(directory: directory.url, clock: TestClock())
        defer { reopened.close() }
        let recovery = reopened.statistics().recovery
        #expect(recovery.tornTails == 0 && recovery.badRecords == 0)
        #expect(try StoreFixtures.contents(of: reopened).map(\.id) == kept.map(\.id))
    }

    @Test("an unwritable directory drops every event and counts it, without trapping")
    func unwritable() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let blocker = directory.file("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let store = EventStore(directory: blocker.appendingPathComponent("events"))
        defer { store.close() }
        for index in 0..<5 { store.enqueue(StoreFixtures.log(index)) }
        #expect(store.enqueue(StoreFixtures.crash(9)) == false)
        store.flush()
        let statistics = store.statistics()
        #expect(!statistics.recovery.directoryUsable)
        #expect(statistics.droppedUnwritable == 6)
        #expect(store.nextBatch(maxEvents: 10, maxBytes: 1 << 20).isEmpty)
    }
}
