import Foundation
import VigilCore

/// An encoded event ready to be framed.
struct PreparedRecord {
    var priority: EventPriority
    var payload: Data
}

/// Why records are deleted, for the counters.
enum DeletionReason {
    case acknowledged
    case cap
    case corrupt
}

/// The segment files of one store directory and their in-memory index: appends, leases,
/// deletions, recovery, retention and the size cap.
///
/// Not thread-safe: ``EventStore`` confines it to its queue. Nothing here throws to the
/// caller; failures are counted in ``statistics``.
final class SegmentLog {
    let directory: String
    let configuration: StoreConfiguration
    let clock: any VigilClock
    let files: any StoreFileSystem

    /// Segments in sequence order; the last one may be the active one.
    var segments: [LogSegment] = []
    var nextSequence: UInt64 = 1
    var nextToken: UInt64 = 1
    var statistics = StoreStatistics()
    /// Whether the directory is open and locked.
    var usable = false
    var lockDescriptor: Int32 = -1
    /// Set by ``close()``: the directory is not opened again.
    private(set) var closed = false
    var lastOpenAttempt: MonotonicInstant?
    /// After a failed compaction the cap is not enforced again before this instant.
    var capBlockedUntil: MonotonicInstant?
    private var scratch: [UInt8] = []

    /// How long to wait before trying again to open an unusable directory.
    static let reopenIntervalNanoseconds: Int64 = 30_000_000_000

    init(directory: String, configuration: StoreConfiguration, clock: any VigilClock, files: any StoreFileSystem) {
        self.directory = directory
        self.configuration = configuration
        self.clock = clock
        self.files = files
    }

    deinit {
        // A store dropped without close(): release the descriptors and the directory lock
        // instead of leaking them (no fsync here: the last reference may go on any thread).
        for segment in segments {
            if segment.appendDescriptor >= 0 { files.close(segment.appendDescriptor) }
            if segment.deletionsDescriptor >= 0 { files.close(segment.deletionsDescriptor) }
        }
        releaseLock()
    }

    func path(_ name: String) -> String { directory + "/" + name }

    var nowMilliseconds: Int64 {
        let seconds = clock.wallNow().timeIntervalSince1970
        guard seconds.isFinite else { return 0 }
        return Int64((seconds * 1000).rounded(.down))
    }

    /// Sum of the segment files' sizes.
    var totalFileBytes: Int { segments.reduce(0) { $0 + $1.fileSize } }

    // MARK: Appending

    /// Frames and appends `records` in as few `write` calls as segment boundaries allow,
    /// rolling to a new segment at the size limit or a new UTC day. Returns how many were
    /// written; the rest are counted as unwritable.
    @discardableResult
    func append(_ records: [PreparedRecord]) -> Int {
        guard !records.isEmpty else { return 0 }
        if !usable { reopenIfDue() }
        guard usable else {
            statistics.droppedUnwritable += records.count
            return 0
        }
        var index = 0
        var written = 0
        while index < records.count {
            guard let segment = writableSegment() else { break }
            scratch.removeAll(keepingCapacity: true)
            let startSize = segment.fileSize
            var size = startSize
            var added: [LogSegment.Slot] = []
            while index < records.count {
                let record = records[index]
                let frame = RecordFrame.size(payloadLength: record.payload.count)
                // A record larger than a whole segment still goes alone into an empty one.
                if size + frame > configuration.segmentByteLimit && size > SegmentHeader.size { break }
                record.payload.withUnsafeBytes { RecordFrame.append(payload: $0, priority: record.priority, to: &scratch) }
                added.append(LogSegment.Slot(token: nextToken, offset: size, length: record.payload.count,
                                             priority: record.priority, state: .stored))
                nextToken += 1
                size += frame
                index += 1
            }
            if added.isEmpty {
                seal(segment)
                continue
            }
            if !writeAll(segment.appendDescriptor, scratch) {
                // Cut off whatever part of the batch reached the file so that no torn record
                // sits before later appends, then stop using this descriptor.
                try? files.truncate(segment.appendDescriptor, to: startSize)
                files.close(segment.appendDescriptor)
                segment.appendDescriptor = -1
                segment.sealed = true
                index -= added.count
                break
            }
            segment.slots += added
            segment.fileSize = size
            segment.liveCount += added.count
            segment.liveBytes += size - startSize
            segment.unsynced = true
            written += added.count
            if index < records.count { seal(segment) }
        }
        statistics.written += written
        statistics.droppedUnwritable += records.count - index
        return written
    }

    /// Makes the written data durable: `fsync` of the active segment when it has unsynced
    /// writes. Returns `false` when the `fsync` failed.
    @discardableResult
    func sync() -> Bool {
        var ok = true
        for segment in segments where segment.appendDescriptor >= 0 && segment.unsynced {
            do {
                try files.sync(segment.appendDescriptor)
                segment.unsynced = false
                statistics.syncs += 1
            } catch {
                ok = false
            }
        }
        return ok
    }

    /// The segment to append to: the active one while it has room and belongs to today,
    /// else a new one. `nil` when no segment file can be created.
    private func writableSegment() -> LogSegment? {
        let today = LogSegment.day(ofMilliseconds: nowMilliseconds)
        if let last = segments.last, !last.sealed {
            if last.day == today && last.fileSize < configuration.segmentByteLimit {
                if last.appendDescriptor >= 0 { return last }
                if let descriptor = try? files.open(path(last.name.recordsFile), mode: .append) {
                    last.appendDescriptor = descriptor
                    return last
                }
            }
            seal(last)
        }
        return createSegment()
    }

    private func createSegment() -> LogSegment? {
        for _ in 0..<2 {
            let name = SegmentName(sequence: nextSequence, generation: 0)
            nextSequence += 1
            let header = SegmentHeader(sequence: name.sequence, createdAtMilliseconds: nowMilliseconds)
            let filePath = path(name.recordsFile)
            guard let descriptor = try? files.open(filePath, mode: .createNew) else { continue }
            guard writeAll(descriptor, header.bytes) else {
                files.close(descriptor)
                files.remove(filePath)
                return nil
            }
            // The new file's directory entry must survive a power loss as surely as the
            // critical records that will go into it.
            syncDirectory()
            let segment = LogSegment(name: name, createdAtMilliseconds: header.createdAtMilliseconds,
                                     fileSize: SegmentHeader.size)
            segment.appendDescriptor = descriptor
            segment.unsynced = true
            segments.append(segment)
            return segment
        }
        return nil
    }

    /// Ends appends to `segment`: `fsync` if needed, close its append descriptor.
    func seal(_ segment: LogSegment) {
        if segment.appendDescriptor >= 0 {
            if segment.unsynced {
                if (try? files.sync(segment.appendDescriptor)) != nil { statistics.syncs += 1 }
                segment.unsynced = false
            }
            files.close(segment.appendDescriptor)
            segment.appendDescriptor = -1
        }
        segment.sealed = true
    }

    /// Writes all of `bytes`; `false` on any failure.
    func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        // A plain Bool result: typed throws through `withUnsafeBytes` crashes Swift 6.3's IRGen.
        bytes.withUnsafeBytes { raw -> Bool in
            do {
                try files.write(descriptor, raw)
                return true
            } catch {
                return false
            }
        }
    }

    /// Up to `count` bytes from the start of the file: fewer when it ends or a read fails first.
    func readPrefix(_ descriptor: Int32, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { raw in
                (try? files.read(descriptor, at: filled, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))) ?? 0
            }
            if got <= 0 { break }
            filled += got
        }
        if filled < bytes.count { bytes.removeLast(bytes.count - filled) }
        return bytes
    }

    func syncDirectory() {
        guard let descriptor = try? files.open(directory, mode: .directory) else { return }
        try? files.sync(descriptor)
        files.close(descriptor)
    }

    // MARK: Leasing and deleting

    /// Leases the oldest stored records: at most `maxEvents`, and at most `maxBytes` of
    /// payload plus one byte each (the newline of a JSON-lines body) unless the first record
    /// alone is larger. Records above `oversizedAbove` bytes are skipped and stay stored.
    func lease(maxEvents: Int, maxBytes: Int, oversizedAbove: Int?) -> [StoredRecord] {
        var out: [StoredRecord] = []
        var bytes = 0
        var buffer: [UInt8] = []
        outer: for segment in segments where segment.liveCount > 0 {
            var descriptor: Int32 = -1
            defer { if descriptor >= 0 { files.close(descriptor) } }
            for index in segment.slots.indices where segment.slots[index].state == .stored {
                let slot = segment.slots[index]
                if let limit = oversizedAbove, slot.length > limit { continue }
                if !out.isEmpty && (out.count >= maxEvents || bytes + slot.length + 1 > maxBytes) { break outer }
                if descriptor < 0 {
                    guard let opened = try? files.open(path(segment.name.recordsFile), mode: .read) else { continue outer }
                    descriptor = opened
                }
                guard let payload = readRecord(slot, from: descriptor, buffer: &buffer) else {
                    markDeleted(segment, index, reason: .corrupt)
                    continue
                }
                segment.slots[index].state = .leased
                out.append(StoredRecord(handle: RecordHandle(segment: segment.name.sequence, token: slot.token),
                                        priority: slot.priority, payload: payload))
                bytes += slot.length + 1
                if out.count >= maxEvents { break outer }
            }
        }
        for segment in segments {
            journalPendingDeletions(segment)
            if segment.liveCount == 0 && segment.sealed { remove(segment) }
        }
        return out
    }

    /// Reads a record and checks it again: the file may have changed under us (it should
    /// not, but a store never hands out bytes it did not verify).
    private func readRecord(_ slot: LogSegment.Slot, from descriptor: Int32, buffer: inout [UInt8]) -> Data? {
        let frame = slot.frameSize
        if buffer.count < frame { buffer = [UInt8](repeating: 0, count: frame) }
        let read: Int? = buffer.withUnsafeMutableBytes { raw in
            var total = 0
            while total < frame {
                guard let count = try? files.read(descriptor, at: slot.offset + total,
                                                  into: UnsafeMutableRawBufferPointer(rebasing: raw[total..<frame])),
                      count > 0 else { return nil }
                total += count
            }
            return total
        }
        guard read == frame else { return nil }
        return buffer.withUnsafeBytes { raw -> Data? in
            let window = UnsafeRawBufferPointer(rebasing: raw[0..<frame])
            let scanner = SegmentScanner(maximumPayload: max(configuration.maximumRecordBytes, slot.length))
            guard let record = scanner.record(at: 0, in: window), record.length == slot.length else { return nil }
            return Data(window[RecordFrame.headerSize..<frame])
        }
    }

    /// Marks records deleted, journals them and removes segments left empty. Unknown or
    /// already deleted handles are ignored (a record may have been dropped for the cap while
    /// leased). Returns how many were deleted now.
    @discardableResult
    func delete(_ handles: [RecordHandle], reason: DeletionReason) -> Int {
        var deleted = 0
        for (segment, indices) in resolve(handles) {
            for index in indices where segment.slots[index].state != .deleted {
                markDeleted(segment, index, reason: reason)
                deleted += 1
            }
            journalPendingDeletions(segment)
            if segment.liveCount == 0 && segment.sealed { remove(segment) }
        }
        return deleted
    }

    /// Returns leased records to the stored state so that the next lease offers them again.
    func release(_ handles: [RecordHandle]) {
        for (segment, indices) in resolve(handles) {
            for index in indices where segment.slots[index].state == .leased {
                segment.slots[index].state = .stored
            }
        }
    }

    /// Whether any stored (not leased) record exists.
    var hasStoredRecords: Bool {
        segments.contains { $0.slots.contains { $0.state == .stored } }
    }

    private func resolve(_ handles: [RecordHandle]) -> [(LogSegment, [Int])] {
        var bySegment: [UInt64: [UInt64]] = [:]
        for handle in handles { bySegment[handle.segment, default: []].append(handle.token) }
        var out: [(LogSegment, [Int])] = []
        for (sequence, tokens) in bySegment {
            guard let segment = segment(sequence: sequence) else { continue }
            out.append((segment, tokens.compactMap { segment.slotIndex(token: $0) }))
        }
        return out
    }

    /// The segment with `sequence`, by binary search (segments are in sequence order).
    func segment(sequence: UInt64) -> LogSegment? {
        segments.binarySearch(sequence, by: \.name.sequence).map { segments[$0] }
    }

    /// Offsets deleted in memory but not yet written to each segment's journal.
    private var pendingJournal: [UInt64: [Int]] = [:]

    func markDeleted(_ segment: LogSegment, _ index: Int, reason: DeletionReason) {
        let slot = segment.slots[index]
        guard slot.state != .deleted else { return }
        segment.slots[index].state = .deleted
        segment.liveCount -= 1
        segment.liveBytes -= slot.frameSize
        pendingJournal[segment.name.sequence, default: []].append(slot.offset)
        switch reason {
        case .acknowledged: statistics.acknowledged += 1
        case .cap: statistics.droppedForCap[slot.priority, default: 0] += 1
        case .corrupt: statistics.droppedCorruptOnRead += 1
        }
    }

    /// Appends the pending deletions of `segment` to its journal, one `write`. Not synced: a
    /// lost deletion only means the server sees the event again and deduplicates it.
    func journalPendingDeletions(_ segment: LogSegment) {
        guard let offsets = pendingJournal.removeValue(forKey: segment.name.sequence), !offsets.isEmpty else { return }
        if segment.liveCount == 0 && segment.sealed { return }  // the whole segment goes
        if segment.deletionsDescriptor < 0 {
            guard let descriptor = try? files.open(path(segment.name.deletionsFile), mode: .append) else { return }
            segment.deletionsDescriptor = descriptor
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(offsets.count * DeletionJournal.entrySize)
        for offset in offsets { DeletionJournal.appendEntry(offset: offset, generation: segment.name.generation, to: &bytes) }
        _ = writeAll(segment.deletionsDescriptor, bytes)
    }

    /// Deletes a segment's files and forgets it.
    func remove(_ segment: LogSegment) {
        if segment.appendDescriptor >= 0 { files.close(segment.appendDescriptor) }
        if segment.deletionsDescriptor >= 0 { files.close(segment.deletionsDescriptor) }
        segment.appendDescriptor = -1
        segment.deletionsDescriptor = -1
        files.remove(path(segment.name.recordsFile))
        files.remove(path(segment.name.deletionsFile))
        pendingJournal[segment.name.sequence] = nil
        segments.removeAll { $0 === segment }
    }

    /// Seals every segment (with `fsync`), closes every file and releases the directory lock,
    /// for good: a later append (one that raced `EventStore.close()`) is dropped and counted.
    func close() {
        for segment in segments {
            journalPendingDeletions(segment)
            seal(segment)
            if segment.deletionsDescriptor >= 0 { files.close(segment.deletionsDescriptor) }
            segment.deletionsDescriptor = -1
        }
        segments.removeAll()
        releaseLock()
        usable = false
        closed = true
    }

    /// Closes the lock file's descriptor, which releases the directory lock.
    func releaseLock() {
        if lockDescriptor >= 0 { files.close(lockDescriptor) }
        lockDescriptor = -1
    }

    /// Counters plus the current contents.
    func snapshot() -> StoreStatistics {
        var out = statistics
        out.storedRecords = segments.reduce(0) { $0 + $1.liveCount }
        out.storedBytes = segments.reduce(0) { $0 + $1.liveBytes }
        out.fileBytes = totalFileBytes
        out.segments = segments.count
        return out
    }
}
