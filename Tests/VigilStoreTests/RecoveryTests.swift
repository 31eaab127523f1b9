import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport

@Suite("Event store: recovery from torn, damaged and foreign files")
struct RecoveryTests {
    /// Writes `count` log events into a fresh store in `directory` and returns them with the
    /// one segment file.
    private func writeSegment(_ directory: TemporaryDirectory, count: Int) throws -> ([Event], URL) {
        let events = (0..<count).map { StoreFixtures.log($0) }
        let store = EventStore(directory: directory.url, clock: TestClock())
        for event in events { store.enqueue(event) }
        store.flush()
        store.close()
        let files = StoreFixtures.segmentFiles(directory.url)
        try #require(files.count == 1)
        return (events, files[0])
    }

    /// Offsets where each record of the file starts, and the file's bytes.
    private func recordOffsets(_ file: URL) throws -> ([Int], [UInt8]) {
        let bytes = [UInt8](try Data(contentsOf: file))
        var offsets: [Int] = []
        var offset = 28
        while offset + 9 <= bytes.count {
            offsets.append(offset)
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            offset += 9 + length
        }
        return (offsets, bytes)
    }

    @Test("a file cut at any byte keeps exactly the complete records before the cut",
          arguments: [0, 1, 5, 8, 9, 10, 50, -1, -2])
    func truncatedAnywhere(cutInRecord: Int) throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let (events, file) = try writeSegment(directory, count: 4)
        let (offsets, bytes) = try recordOffsets(file)
        // Cut inside the third record (or, for negative values, that many bytes before its end).
        let cut = cutInRecord >= 0 ? offsets[2] + cutInRecord : offsets[3] + cutInRecord
        try Data(bytes[0..<cut]).write(to: file)
        let store = EventStore(directory: directory.url, clock: TestClock())
        defer { store.close() }
        let recovery = store.statistics().recovery
        #expect(try StoreFixtures.contents(of: store) == Array(events[0..<2]))
        #expect(recovery.tornTails == (cut == offsets[2] ? 0 : 1))
        #expect(recovery.tornBytes == cut - offsets[2])
        #expect(StoreFixtures.size(file) == offsets[2])
        // Appending after recovery continues a clean file.
        store.enqueue(StoreFixtures.log(99))
        store.flush()
        #expect(try StoreFixtures.contents(of: store).map(\.id) == (events[0..<2].map(\.id) + [StoreFixtures.log(99).id]))
    }

    @Test("a damaged byte anywhere in a record loses only that record", arguments: [0, 3, 4, 7, 8, 9, 40])
    func flippedByte(positionInRecord: Int) throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let (events, file) = try writeSegment(directory, count: 5)
        var (offsets, bytes) = try recordOffsets(file)
        bytes[offsets[1] + positionInRecord] ^= 0x5A
        try Data(bytes).write(to: file)
        let store = EventStore(directory: directory.url, clock: TestClock())
        defer { store.close() }
        let recovery = store.statistics().recovery
        #expect(try StoreFixtures.contents(of: store) == [events[0]] + Array(events[2...]))
        #expect(recovery.badRecords == 1)
        #expect(recovery.badBytes == offsets[2] - offsets[1])
        #expect(recovery.tornTails == 0)
    }

    @Test("a zero-filled or garbage tail is cut off and counted", arguments: [true, false])
    func garbageTail(zeros: Bool) throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let (events, file) = try writeSegment(directory, count: 3)
        var generator = SeededGenerator(seed: 7)
        let tail = (0..<4096).map { _ in zeros ? UInt8(0) : UInt8.random(in: 0...255, using: &generator) }
        let handle = try FileHandle(forWritingTo: file)
        handle.seekToEndOfFile()
        handle.write(Data(tail))
        try handle.close()
        let store = EventStore(directory: directory.url, clock: TestClock())
        defer { store.close() }
        #expect(try StoreFixtures.contents(of: store) == events)
        let recovery = store.statistics().recovery
        #expect(recovery.tornTails == 1)
        #expect(recovery.tornBytes == 4096)
    }

    @Test("files of random bytes, empty files and foreign files never trap and never yield records",
          arguments: 0..<12)
    func hostileFiles(seed: UInt64) throws {
        let directory = try TemporaryDirectory(prefix: "store")
        var generator = SeededGenerator(seed: seed)
        let size = [0, 1, 27, 28, 100, 70_000][Int(seed) % 6]
        var bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        if seed >= 6, bytes.count >= 28 {
            // A valid header followed by garbage: only the records part is hostile.
            let header: [UInt8] = Array("VGSG".utf8) + [1, 0, 0, 0]
            bytes.replaceSubrange(0..<8, with: header)
        }
        try Data(bytes).write(to: directory.file("seg-0000000000000001-00000000.vgs"))
        try Data(bytes.prefix(40)).write(to: directory.file("seg-0000000000000001-00000000.del"))
        try Data("junk".utf8).write(to: directory.file("seg-0000000000000002-00000000.tmp"))
        try Data("keep me".utf8).write(to: directory.file("README"))
        let store = EventStore(directory: directory.url, clock: TestClock())
        defer { store.close() }
        let statistics = store.statistics()
        #expect(statistics.recovery.segmentsScanned == 1)
        #expect(statistics.recovery.corruptSegments == 1)
        #expect(statistics.recovery.strayFilesRemoved == 1)
        #expect(try StoreFixtures.contents(of: store).isEmpty)
        #expect(FileManager.default.fileExists(atPath: directory.file("README").path))
        // The store still works.
        store.enqueue(StoreFixtures.log(1))
        store.flush()
        #expect(try StoreFixtures.contents(of: store).map(\.id) == [StoreFixtures.log(1).id])
    }

    @Test("a record acknowledged and then lost with the segment's tail does not hide the record appended in its place",
          arguments: [0, 5])
    func acknowledgedRecordLostInPowerLoss(cutInRecord: Int) throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let files = LocalFileSystem()
        let (a, b, c) = (StoreFixtures.log(1), StoreFixtures.log(2), StoreFixtures.log(3))
        let first = EventStore(directory: directory.url, clock: TestClock(), fileSystem: files)
        first.enqueue(a)
        first.enqueue(b)
        first.flush()
        let leased = first.nextBatch(maxEvents: 10, maxBytes: .max)
        try #require(leased.count == 2)
        #expect(first.acknowledge([leased[1].handle]) == 1)
        first.close()
        // A power loss after B's deletion was journaled but before B's bytes were durable:
        // the segment ends at B's offset (or inside B), the journal still names B's offset.
        let segment = try #require(StoreFixtures.segmentFiles(directory.url).first)
        let (offsets, _) = try recordOffsets(segment)
        try #require(offsets.count == 2)
        let handle = try FileHandle(forWritingTo: segment)
        try handle.truncate(atOffset: UInt64(offsets[1] + cutInRecord))
        try handle.close()

        let second = EventStore(directory: directory.url, clock: TestClock(), fileSystem: files)
        #expect(try StoreFixtures.contents(of: second) == [a])
        #expect(second.statistics().recovery.journalEntriesPastEnd == 1)
        second.enqueue(c)
        second.flush()
        second.close()

        let third = EventStore(directory: directory.url, clock: TestClock(), fileSystem: files)
        defer { third.close() }
        #expect(third.statistics().recovery.recordsAlreadyAcknowledged == 0)
        let delivered = third.nextBatch(maxEvents: 10, maxBytes: .max)
        #expect(try delivered.map { try EventJSON.decode($0.payload) } == [a, c])
    }

    @Test("an interrupted compaction leaves the newest complete generation and no strays")
    func interruptedCompaction() throws {
        let directory = try TemporaryDirectory(prefix: "store")
        let (events, file) = try writeSegment(directory, count: 3)
        let bytes = try Data(contentsOf: file)
        // Generation 1 renamed into place, generation 0 not yet removed, and a stale .tmp.
        try bytes.write(to: directory.file("seg-0000000000000001-00000001.vgs"))
        try Data([1, 2, 3, 4, 5, 6, 7, 8]).write(to: directory.file("seg-0000000000000001-00000000.del"))
        try Data("partial".utf8).write(to: directory.file("seg-0000000000000001-00000002.tmp"))
        let store = EventStore(directory: directory.url, clock: TestClock())
        defer { store.close() }
        #expect(try StoreFixtures.contents(of: store) == events)
        #expect(store.statistics().recovery.strayFilesRemoved == 3)
        #expect(StoreFixtures.segmentFiles(directory.url).map(\.lastPathComponent) == ["seg-0000000000000001-00000001.vgs"])
    }
}
