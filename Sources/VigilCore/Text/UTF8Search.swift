extension StringProtocol {
    /// Whether `needle` occurs in this text, comparing UTF-8 bytes — what `contains` means for
    /// paths and identifiers. With Foundation imported, `contains` resolves to Foundation's
    /// locale-aware search, which costs a string bridge per call; the server asks this of every
    /// image path of every crash and hang it analyzes.
    public func containsBytes(_ needle: String) -> Bool {
        let found = utf8.withContiguousStorageIfAvailable { haystack in
            needle.utf8.withContiguousStorageIfAvailable { pattern in Self.search(haystack, for: pattern) }
        }
        if let found = found ?? nil { return found }
        return Self.search(Array(utf8)[...], for: Array(needle.utf8)[...])
    }

    private static func search<H: RandomAccessCollection, P: RandomAccessCollection>(_ haystack: H, for pattern: P) -> Bool
    where H.Element == UInt8, P.Element == UInt8, H.Index == Int, P.Index == Int {
        guard let first = pattern.first else { return true }
        guard haystack.count >= pattern.count else { return false }
        var start = haystack.startIndex
        let last = haystack.endIndex - pattern.count
        while start <= last {
            if haystack[start] == first {
                var matched = true
                var offset = 1
                while offset < pattern.count {
                    if haystack[start + offset] != pattern[pattern.startIndex + offset] {
                        matched = false
                        break
                    }
                    offset += 1
                }
                if matched { return true }
            }
            start += 1
        }
        return false
    }
}
