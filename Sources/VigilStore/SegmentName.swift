/// The file names of one segment generation: `seg-<sequence: 16 hex>-<generation: 8 hex>.vgs`
/// for the records and the same stem with `.del` for its deletion journal. Compaction writes
/// generation `g + 1` to a `.tmp` file, renames it into place, then removes generation `g`.
struct SegmentName: Hashable, Comparable, Sendable {
    /// The segment's position in the queue.
    var sequence: UInt64
    /// How many times the segment was compacted.
    var generation: UInt32

    /// The kind of file a directory entry is.
    enum Kind { case records, deletions, temporary }

    var recordsFile: String { stem + ".vgs" }
    var deletionsFile: String { stem + ".del" }
    var temporaryFile: String { stem + ".tmp" }

    private var stem: String { "seg-" + hex(sequence, digits: 16) + "-" + hex(UInt64(generation), digits: 8) }

    /// Parses a directory entry; `nil` for files that are not the store's.
    static func parse(_ fileName: String) -> (SegmentName, Kind)? {
        let utf8 = Array(fileName.utf8)
        // "seg-" 16 "-" 8 "." 3
        guard utf8.count == 4 + 16 + 1 + 8 + 4, fileName.hasPrefix("seg-"), utf8[20] == UInt8(ascii: "-"),
              utf8[29] == UInt8(ascii: ".") else { return nil }
        guard let sequence = UInt64(String(decoding: utf8[4..<20], as: UTF8.self), radix: 16),
              let generation = UInt32(String(decoding: utf8[21..<29], as: UTF8.self), radix: 16) else { return nil }
        let kind: Kind
        switch String(decoding: utf8[30...], as: UTF8.self) {
        case "vgs": kind = .records
        case "del": kind = .deletions
        case "tmp": kind = .temporary
        default: return nil
        }
        return (SegmentName(sequence: sequence, generation: generation), kind)
    }

    static func < (lhs: SegmentName, rhs: SegmentName) -> Bool {
        (lhs.sequence, lhs.generation) < (rhs.sequence, rhs.generation)
    }

    private func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
