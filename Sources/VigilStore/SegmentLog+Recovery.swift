import Foundation
import VigilCore

extension SegmentLog {
    /// Opens the directory: creates it, takes its lock, scans every segment (truncating torn
    /// tails, skipping bad records, removing corrupt files and leftovers), applies the
    /// deletion journals, then enforces retention and the cap. Counts everything in
    /// ``StoreStatistics/recovery``.
    func open() {
        lastOpenAttempt = clock.monotonicNow()
        do {
            try files.makeDirectory(directory)
            let lock = try files.open(path("store.lock"), mode: .lock)
            guard files.lockExclusively(lock) else {
                files.close(lock)
                throw StoreIOError(operation: "flock", path: path("store.lock"), code: EWOULDBLOCK)
            }
            lockDescriptor = lock
        } catch {
            usable = false
            statistics.recovery.directoryUsable = false
            statistics.recovery.directoryProblem = String(describing: error)
            return
        }
        usable = true
        statistics.recovery.directoryUsable = true
        statistics.recovery.directoryProblem = nil
        recover()
        enforceRetention()
        enforceCap()
    }

    /// Tries `open()` again when the last attempt is old enough (an unwritable directory may
    /// become writable, another process may release the lock). Never after ``close()``.
    func reopenIfDue() {
        guard !closed else { return }
        if let last = lastOpenAttempt,
           clock.monotonicNow().nanoseconds(since: last) < SegmentLog.reopenIntervalNanoseconds { return }
        open()
    }

    private func recover() {
        let names: [String]
        do {
            names = try files.fileNames(in: directory)
        } catch {
            usable = false
            statistics.recovery.directoryUsable = false
            statistics.recovery.directoryProblem = String(describing: error)
            // Let go of the lock: the next attempt opens a new descriptor, and flock refuses it
            // while this process still holds the lock through the old one.
            releaseLock()
            return
        }
        var newest: [UInt64: SegmentName] = [:]
        var parsed: [(SegmentName, SegmentName.Kind)] = []
        for fileName in names {
            guard let entry = SegmentName.parse(fileName) else { continue }
            parsed.append(entry)
            if entry.1 == .records {
                if let known = newest[entry.0.sequence], known > entry.0 { continue }
                newest[entry.0.sequence] = entry.0
            }
        }
        for (name, kind) in parsed {
            let current = newest[name.sequence]
            let stray: Bool
            switch kind {
            case .temporary: stray = true
            case .records, .deletions: stray = current != name
            }
            if stray {
                files.remove(path(kind == .temporary ? name.temporaryFile
                                  : kind == .records ? name.recordsFile : name.deletionsFile))
                statistics.recovery.strayFilesRemoved += 1
            }
        }
        for name in newest.values.sorted() {
            if let segment = load(name) {
                segment.sealed = true
                segments.append(segment)
            }
            nextSequence = max(nextSequence, name.sequence &+ 1)
        }
        for segment in segments where segment.liveCount == 0 { remove(segment) }
        // The newest segment may take more appends if it is still today's and has room, and
        // if its journal names no offset where the next record would go.
        if let last = segments.last, !last.journalReachesPastEnd { last.sealed = false }
    }

    /// Reads and checks one segment file; `nil` when it was corrupt (and is now removed).
    private func load(_ name: SegmentName) -> LogSegment? {
        let recordsPath = path(name.recordsFile)
        guard let descriptor = try? files.open(recordsPath, mode: .read) else { return nil }
        defer { files.close(descriptor) }
        statistics.recovery.segmentsScanned += 1
        let size = (try? files.size(descriptor)) ?? 0
        // A hostile or foreign file may be huge: never read more than a segment can
        // legitimately hold; the excess is treated as torn tail.
        let bound = 2 * (configuration.segmentByteLimit + configuration.maximumRecordBytes) + SegmentHeader.size
        let bytes = readPrefix(descriptor, count: min(size, bound))
        let filled = bytes.count
        let scanner = SegmentScanner(maximumPayload: configuration.maximumRecordBytes)
        let scan = bytes.withUnsafeBytes { scanner.scan($0) }
        guard let header = scan.header, header.sequence == name.sequence else {
            statistics.recovery.corruptSegments += 1
            statistics.recovery.corruptBytes += size
            files.remove(recordsPath)
            files.remove(path(name.deletionsFile))
            return nil
        }
        statistics.recovery.badRecords += scan.badRecords
        statistics.recovery.badBytes += scan.badBytes
        let tornBytes = scan.tornBytes + (size - filled)
        if tornBytes > 0 {
            statistics.recovery.tornTails += 1
            statistics.recovery.tornBytes += tornBytes
            if let writable = try? files.open(recordsPath, mode: .append) {
                try? files.truncate(writable, to: scan.validEnd)
                try? files.sync(writable)
                files.close(writable)
            }
        }
        let segment = LogSegment(name: name, createdAtMilliseconds: header.createdAtMilliseconds, fileSize: scan.validEnd)
        segment.slots.reserveCapacity(scan.records.count)
        for record in scan.records {
            segment.slots.append(LogSegment.Slot(token: nextToken, offset: record.offset, length: record.length,
                                                 priority: record.priority, state: .stored))
            nextToken += 1
        }
        statistics.recovery.recordsFound += scan.records.count
        let deleted = readDeletions(name)
        // Entries for records that are no longer in the file (acknowledged, then lost to a
        // power loss before their bytes were durable) must never match a later record.
        let pastEnd = deleted.filter { $0 >= scan.validEnd }.count
        if pastEnd > 0 {
            segment.journalReachesPastEnd = true
            statistics.recovery.journalEntriesPastEnd += pastEnd
        }
        var live = 0
        var liveBytes = 0
        for index in segment.slots.indices {
            if deleted.contains(segment.slots[index].offset) {
                segment.slots[index].state = .deleted
                statistics.recovery.recordsAlreadyAcknowledged += 1
            } else {
                live += 1
                liveBytes += segment.slots[index].frameSize
            }
        }
        segment.liveCount = live
        segment.liveBytes = liveBytes
        return segment
    }

    private func readDeletions(_ name: SegmentName) -> Set<Int> {
        guard let descriptor = try? files.open(path(name.deletionsFile), mode: .read) else { return [] }
        defer { files.close(descriptor) }
        // One entry per record at most; a longer journal is damaged and read only that far.
        let size = min((try? files.size(descriptor)) ?? 0, (configuration.segmentByteLimit + configuration.maximumRecordBytes))
        let bytes = readPrefix(descriptor, count: size)
        return bytes.withUnsafeBytes { DeletionJournal.offsets(in: $0, generation: name.generation) }
    }
}
