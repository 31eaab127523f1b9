/// Which subprogram or inlined subroutine DIE covers each address of one compile unit, built
/// exactly as llvm's `DWARFUnit::updateAddressDieMap` builds its `AddrDieMap`: every range of
/// every subroutine DIE inserted in DIE order, a child splitting the range of the entry it
/// starts in. The result is turned into sorted, non-overlapping intervals.
///
/// Insertion uses a sorted array of chunks, so a hostile unit with ranges in decreasing order
/// costs O(n · chunk) rather than O(n²).
struct SubroutineMap {
    struct Interval {
        var low: UInt64
        var high: UInt64
        /// Index into ``DWARFDebugInfo/records``.
        var record: Int32
    }

    /// Sorted, non-overlapping intervals.
    private(set) var intervals: [Interval] = []

    private struct Entry {
        var key: UInt64
        var end: UInt64
        var record: Int32
    }

    /// A sorted map from key to (end, record) stored in chunks of at most `chunkLimit` entries.
    private struct ChunkedMap {
        static let chunkLimit = 512
        var chunks: [[Entry]] = []
        var firstKeys: [UInt64] = []

        /// The chunk that holds `key` or would: the last whose first key is ≤ `key` (else 0).
        func chunkIndex(for key: UInt64) -> Int {
            var low = 0, high = firstKeys.count
            while low < high {
                let middle = (low + high) / 2
                if firstKeys[middle] <= key { low = middle + 1 } else { high = middle }
            }
            return max(low - 1, 0)
        }

        /// Position of the first entry in `chunk` with a key > `key`.
        static func upperBound(_ chunk: [Entry], _ key: UInt64) -> Int {
            var low = 0, high = chunk.count
            while low < high {
                let middle = (low + high) / 2
                if chunk[middle].key <= key { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// The entry with the greatest key ≤ `key`.
        func floor(_ key: UInt64) -> Entry? {
            guard !chunks.isEmpty else { return nil }
            let index = chunkIndex(for: key)
            let position = ChunkedMap.upperBound(chunks[index], key)
            if position > 0 { return chunks[index][position - 1] }
            return nil // key is below every key (only possible in chunk 0)
        }

        /// Sets `key` to (end, record), inserting it when absent.
        mutating func set(_ key: UInt64, end: UInt64, record: Int32) {
            let entry = Entry(key: key, end: end, record: record)
            if chunks.isEmpty {
                chunks = [[entry]]
                firstKeys = [key]
                return
            }
            let index = chunkIndex(for: key)
            let position = ChunkedMap.upperBound(chunks[index], key)
            if position > 0, chunks[index][position - 1].key == key {
                chunks[index][position - 1] = entry
                return
            }
            chunks[index].insert(entry, at: position)
            if position == 0 { firstKeys[index] = key }
            if chunks[index].count > ChunkedMap.chunkLimit {
                let upper = Array(chunks[index][(ChunkedMap.chunkLimit / 2)...])
                chunks[index].removeLast(upper.count)
                chunks.insert(upper, at: index + 1)
                firstKeys.insert(upper[0].key, at: index + 1)
            }
        }

        /// Changes the end of the existing `key`.
        mutating func setEnd(_ key: UInt64, end: UInt64) {
            let index = chunkIndex(for: key)
            let position = ChunkedMap.upperBound(chunks[index], key)
            if position > 0, chunks[index][position - 1].key == key { chunks[index][position - 1].end = end }
        }
    }

    /// Builds the map of one unit from its records (in DIE order) and their ranges.
    init(records: Range<Int>, ranges: (Int) -> [(UInt64, UInt64)]) {
        var map = ChunkedMap()
        for record in records {
            for (low, high) in ranges(record) where low != high {
                if let existing = map.floor(low), low < existing.end {
                    if high < existing.end { map.set(high, end: existing.end, record: existing.record) }
                    if low > existing.key { map.setEnd(existing.key, end: low) }
                }
                map.set(low, end: high, record: Int32(record))
            }
        }
        // Entry i answers addresses in [key_i, min(end_i, key_i+1)).
        let entries = map.chunks.joined()
        var previous: Entry?
        for entry in entries {
            if let last = previous {
                let high = min(last.end, entry.key)
                if last.key < high { intervals.append(Interval(low: last.key, high: high, record: last.record)) }
            }
            previous = entry
        }
        if let last = previous, last.key < last.end {
            intervals.append(Interval(low: last.key, high: last.end, record: last.record))
        }
    }

    /// The record covering `address`, if any.
    func record(containing address: UInt64) -> Int32? {
        var low = 0, high = intervals.count
        while low < high {
            let middle = (low + high) / 2
            if intervals[middle].high <= address { low = middle + 1 } else { high = middle }
        }
        guard low < intervals.count, intervals[low].low <= address else { return nil }
        return intervals[low].record
    }
}
