import Foundation
import VigilCore

extension SegmentLog {
    /// Deletes segments created longer ago than the retention time, counting their records
    /// as expired.
    func enforceRetention() {
        let cutoff = nowMilliseconds - Int64(configuration.retentionSeconds * 1000)
        for segment in segments where segment.createdAtMilliseconds < cutoff {
            statistics.droppedExpired += segment.liveCount
            remove(segment)
        }
    }

    /// Keeps the segment files under the total cap: when over it, drops records lowest
    /// priority first and oldest first within a priority until what is left fits in the
    /// low-water mark, journals the drops, then compacts every segment that holds deleted
    /// records. Cost: one read and one write of each compacted segment.
    func enforceCap() {
        guard usable, totalFileBytes > configuration.totalByteLimit else { return }
        let now = clock.monotonicNow()
        if let blocked = capBlockedUntil, now < blocked { return }
        if let last = segments.last { seal(last) }
        let target = Int(Double(configuration.totalByteLimit) * configuration.lowWaterFraction)
        var projected = segments.reduce(0) { $0 + ($1.liveCount > 0 ? SegmentHeader.size + $1.liveBytes : 0) }
        if projected > target {
            victims: for priority in EventPriority.allCases {
                for segment in segments where segment.liveCount > 0 {
                    for index in segment.slots.indices {
                        let slot = segment.slots[index]
                        guard slot.state != .deleted, slot.priority == priority else { continue }
                        markDeleted(segment, index, reason: .cap)
                        projected -= slot.frameSize + (segment.liveCount == 0 ? SegmentHeader.size : 0)
                        if projected <= target { break victims }
                    }
                }
            }
        }
        for segment in segments {
            journalPendingDeletions(segment)
        }
        for segment in segments where segment.fileSize > SegmentHeader.size + segment.liveBytes {
            if !compact(segment) {
                capBlockedUntil = now.advanced(byNanoseconds: 60_000_000_000)
                return
            }
        }
    }

    /// Rewrites a sealed segment without its deleted records as the next generation (write
    /// to `.tmp`, `fsync`, rename, remove the old generation), or removes it when nothing is
    /// left. Handles stay valid: tokens do not change, only offsets. Returns `false` when the
    /// rewrite failed (the segment is left as it was).
    @discardableResult
    func compact(_ segment: LogSegment) -> Bool {
        if segment.liveCount == 0 {
            remove(segment)
            return true
        }
        seal(segment)
        let oldName = segment.name
        guard let input = try? files.open(path(oldName.recordsFile), mode: .read) else { return false }
        let old = readPrefix(input, count: segment.fileSize)
        files.close(input)
        guard old.count == segment.fileSize else { return false }

        let newName = SegmentName(sequence: oldName.sequence, generation: oldName.generation &+ 1)
        var out = SegmentHeader(sequence: oldName.sequence, createdAtMilliseconds: segment.createdAtMilliseconds).bytes
        out.reserveCapacity(SegmentHeader.size + segment.liveBytes)
        var newSlots: [LogSegment.Slot] = []
        newSlots.reserveCapacity(segment.liveCount)
        for var slot in segment.slots where slot.state != .deleted {
            let start = slot.offset
            slot.offset = out.count
            out.append(contentsOf: old[start..<(start + slot.frameSize)])
            newSlots.append(slot)
        }
        let temporaryPath = path(newName.temporaryFile)
        do {
            let descriptor = try files.open(temporaryPath, mode: .replace)
            defer { files.close(descriptor) }
            guard writeAll(descriptor, out) else { throw StoreIOError(operation: "write", path: temporaryPath, code: EIO) }
            try files.sync(descriptor)
            try files.rename(temporaryPath, to: path(newName.recordsFile))
        } catch {
            files.remove(temporaryPath)
            return false
        }
        syncDirectory()
        if segment.deletionsDescriptor >= 0 { files.close(segment.deletionsDescriptor) }
        segment.deletionsDescriptor = -1
        files.remove(path(oldName.recordsFile))
        files.remove(path(oldName.deletionsFile))
        segment.name = newName
        segment.slots = newSlots
        segment.fileSize = out.count
        return true
    }
}
