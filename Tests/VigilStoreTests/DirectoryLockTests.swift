import Foundation
import Testing
import VigilCore
@testable import VigilStore
import VigilTestSupport

@Suite("Event store: the directory lock across failed opens and close")
struct DirectoryLockTests {
    @Test("a directory that could not be listed is used at the next open attempt (the lock is not kept meanwhile)")
    func reopensAfterFailedListing() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let clock = TestClock()
        let store = EventStore(directory: directory.url, clock: clock, fileSystem: FaultyFileSystem(failingListings: 1))
        defer { store.close() }
        store.enqueue(StoreFixtures.log(1))
        store.flush()
        #expect(!store.statistics().recovery.directoryUsable)

        clock.advance(byMilliseconds: Double(SegmentLog.reopenIntervalNanoseconds / 1_000_000) + 1)
        store.enqueue(StoreFixtures.log(2))
        store.flush()
        let statistics = store.statistics()
        #expect(statistics.recovery.directoryUsable)
        #expect(statistics.droppedUnwritable == 1)
        #expect(try StoreFixtures.contents(of: store).map(\.id) == [StoreFixtures.log(2).id])
    }

    @Test("a closed log never opens its directory again, so the next store gets the lock")
    func closedLogStaysClosed() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let clock = TestClock()
        let log = SegmentLog(directory: directory.url.path, configuration: StoreConfiguration(), clock: clock,
                             files: LocalFileSystem())
        log.open()
        #expect(log.usable)
        log.close()

        // An append that raced `EventStore.close()` arrives after the reopen interval.
        clock.advance(byMilliseconds: Double(SegmentLog.reopenIntervalNanoseconds / 1_000_000) + 1)
        #expect(log.append([PreparedRecord(priority: .low, payload: Data("{}".utf8))]) == 0)
        #expect(log.statistics.droppedUnwritable == 1)
        #expect(log.lockDescriptor < 0)

        let next = EventStore(directory: directory.url)
        defer { next.close() }
        #expect(next.statistics().recovery.directoryUsable)
    }

    @Test("a store dropped without close() releases the directory lock")
    func droppedStoreReleasesLock() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        weak var dropped: EventStore?
        do {
            let store = EventStore(directory: directory.url)
            dropped = store
            // A critical event is synced at once: no deferred sync keeps the store alive for 1 s.
            store.enqueue(StoreFixtures.crash(1))
        }
        // The store's queue lets go of it once its last drain has run.
        let deadline = Date().addingTimeInterval(5)
        while dropped != nil && Date() < deadline { usleep(1000) }
        #expect(dropped == nil)

        let next = EventStore(directory: directory.url)
        defer { next.close() }
        #expect(next.statistics().recovery.directoryUsable)
        #expect(try StoreFixtures.contents(of: next).map(\.id) == [StoreFixtures.crash(1).id])
    }
}
