import Foundation
import VigilCore
import VigilStore
import VigilTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Shared helpers of the store tests.
enum StoreFixtures {
    /// A small log event (low priority) with a deterministic id.
    static func log(_ index: Int, level: LogLevel = .info) -> Event {
        var event = SampleEvents.make(.log, index: index)
        event.payload = .log(LogPayload(level: level, message: "message \(index)"))
        return event
    }

    /// A crash event (critical) with a deterministic id.
    static func crash(_ index: Int) -> Event { SampleEvents.make(.crash, index: index) }

    /// Every stored event, in store order, by leasing everything and releasing it again.
    static func contents(of store: EventStore) throws -> [Event] {
        let records = store.nextBatch(maxEvents: Int.max, maxBytes: Int.max)
        store.release(records.map(\.handle))
        return try records.map { try EventJSON.decode($0.payload) }
    }

    /// The segment files in `directory`, sorted by name.
    static func segmentFiles(_ directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".vgs") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// The size of a file in bytes.
    static func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? -1
    }
}

/// A ``StoreFileSystem`` over the real disk with injected faults: writes fail with `ENOSPC`
/// once a byte budget is spent (a disk that fills up), the first `failingListings`
/// directory listings fail with `EIO`, and each `fsync` can be made slow (a loaded disk).
final class FaultyFileSystem: StoreFileSystem, @unchecked Sendable {
    private let real = LocalFileSystem()
    private let lock = NSLock()
    private var budget: Int
    private var listingFailuresLeft: Int
    private(set) var refusedWrites = 0

    private var syncDelaySeconds: Double

    init(budget: Int = .max, failingListings: Int = 0, syncDelaySeconds: Double = 0) {
        self.budget = budget
        self.listingFailuresLeft = failingListings
        self.syncDelaySeconds = syncDelaySeconds
    }

    /// Makes each later `fsync` take `seconds` (a disk busy with other work).
    func setSyncDelay(_ seconds: Double) {
        lock.lock(); defer { lock.unlock() }
        syncDelaySeconds = seconds
    }

    /// Frees disk space again.
    func setBudget(_ bytes: Int) {
        lock.lock(); defer { lock.unlock() }
        budget = bytes
    }

    func makeDirectory(_ path: String) throws(StoreIOError) { try real.makeDirectory(path) }
    func fileNames(in directory: String) throws(StoreIOError) -> [String] {
        lock.lock()
        let fails = listingFailuresLeft > 0
        if fails { listingFailuresLeft -= 1 }
        lock.unlock()
        if fails { throw StoreIOError(operation: "opendir", path: directory, code: EIO) }
        return try real.fileNames(in: directory)
    }
    func open(_ path: String, mode: StoreFileMode) throws(StoreIOError) -> Int32 { try real.open(path, mode: mode) }
    func read(_ descriptor: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(StoreIOError) -> Int {
        try real.read(descriptor, at: offset, into: buffer)
    }
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(StoreIOError) {
        lock.lock()
        let allowed = min(bytes.count, budget)
        budget -= allowed
        if allowed < bytes.count { refusedWrites += 1 }
        lock.unlock()
        // Like a real full disk: the part that fits is written, then the call fails.
        if allowed > 0 { try real.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[0..<allowed])) }
        if allowed < bytes.count { throw StoreIOError(operation: "write", path: "fd \(descriptor)", code: ENOSPC) }
    }
    func sync(_ descriptor: Int32) throws(StoreIOError) {
        lock.lock()
        let delay = syncDelaySeconds
        lock.unlock()
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        try real.sync(descriptor)
    }
    func size(_ descriptor: Int32) throws(StoreIOError) -> Int { try real.size(descriptor) }
    func truncate(_ descriptor: Int32, to size: Int) throws(StoreIOError) { try real.truncate(descriptor, to: size) }
    func close(_ descriptor: Int32) { real.close(descriptor) }
    func rename(_ source: String, to destination: String) throws(StoreIOError) { try real.rename(source, to: destination) }
    func remove(_ path: String) { real.remove(path) }
    func lockExclusively(_ descriptor: Int32) -> Bool { real.lockExclusively(descriptor) }
}
