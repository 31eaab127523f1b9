extension RandomAccessCollection where Index == Int {
    /// The index of the element whose `key` is `value`, nil when none is; the elements must be
    /// sorted by `key`, ascending. O(log n).
    func binarySearch<Key: Comparable>(_ value: Key, by key: (Element) -> Key) -> Int? {
        var low = startIndex
        var high = endIndex - 1
        while low <= high {
            let middle = low + (high - low) / 2
            let candidate = key(self[middle])
            if candidate == value { return middle }
            if candidate < value { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}
