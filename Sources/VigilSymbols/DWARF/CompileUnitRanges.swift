/// Which compile unit covers each address: `.debug_aranges` sets, completed by the ranges of
/// the unit DIEs that no set describes — llvm's `DWARFDebugAranges`, including how it resolves
/// overlaps (the lowest unit offset, or the previous range's unit while it still applies).
struct CompileUnitRanges {
    struct Range {
        var low: UInt64
        var high: UInt64
        /// The unit's `.debug_info` header offset.
        var unitOffset: Int
    }

    /// Sorted, non-overlapping.
    private(set) var ranges: [Range] = []

    init(info: DWARFDebugInfo, diagnostics: inout [SymbolsError]) {
        struct Endpoint {
            var address: UInt64
            var unitOffset: Int
            var isStart: Bool
        }
        var endpoints: [Endpoint] = []
        func append(_ unitOffset: Int, _ low: UInt64, _ high: UInt64) {
            guard low < high else { return }
            endpoints.append(Endpoint(address: low, unitOffset: unitOffset, isStart: true))
            endpoints.append(Endpoint(address: high, unitOffset: unitOffset, isStart: false))
        }

        var described: Set<Int> = []
        do throws(SymbolsError) {
            try CompileUnitRanges.readArangesSets(info.sections.aranges) { unitOffset, low, high in append(unitOffset, low, high) } described: {
                described.insert($0)
            }
        } catch {
            diagnostics.append(error)
        }
        for (index, unit) in info.units.enumerated() where unit.isCompileUnit && !described.contains(unit.offset) {
            described.insert(unit.offset)
            let attributes = info.attributes[index]
            do throws(SymbolsError) {
                let unitRanges = try RangeLists.ranges(lowPC: attributes.lowPC, highPC: attributes.highPC,
                                                       highPCIsOffset: attributes.highPCIsOffset, ranges: attributes.ranges,
                                                       rangesIsIndex: attributes.rangesIsIndex, unit: unit,
                                                       attributes: attributes, info: info)
                for (low, high) in unitRanges { append(unit.offset, low, high) }
            } catch {
                diagnostics.append(error)
            }
        }

        endpoints.sort { $0.address < $1.address }
        var valid: [Int: Int] = [:] // unit offset → multiplicity
        var heap = MinimumHeap() // unit offsets, lazily cleaned of those no longer valid
        var previous = UInt64.max
        for endpoint in endpoints {
            while let top = heap.minimum, valid[top] == nil { heap.removeMinimum() }
            if previous < endpoint.address, let smallest = heap.minimum {
                if let last = ranges.last, last.high == previous, valid[last.unitOffset] != nil {
                    ranges[ranges.count - 1].high = endpoint.address
                } else {
                    ranges.append(Range(low: previous, high: endpoint.address, unitOffset: smallest))
                }
            }
            if endpoint.isStart {
                if valid[endpoint.unitOffset] == nil { heap.insert(endpoint.unitOffset) }
                valid[endpoint.unitOffset, default: 0] += 1
            } else if let count = valid[endpoint.unitOffset] {
                if count <= 1 { valid[endpoint.unitOffset] = nil } else { valid[endpoint.unitOffset] = count - 1 }
            }
            previous = endpoint.address
        }
    }

    /// The unit offset covering `address`, if any.
    func unitOffset(containing address: UInt64) -> Int? {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].high <= address { low = middle + 1 } else { high = middle }
        }
        guard low < ranges.count, ranges[low].low <= address else { return nil }
        return ranges[low].unitOffset
    }

    /// Reads `.debug_aranges`; a malformed set ends the reading (earlier sets stay).
    static func readArangesSets(_ section: DWARFSections.Section, range: (Int, UInt64, UInt64) -> Void,
                                described: (Int) -> Void) throws(SymbolsError) {
        var offset = 0
        while offset < section.bytes.count {
            var reader = section.reader(at: offset)
            var length = UInt64(try reader.u32("aranges unit_length"))
            var offsetSize = 4
            if length == 0xffff_ffff {
                length = try reader.u64("aranges unit_length (64-bit)")
                offsetSize = 8
            }
            guard length <= UInt64(reader.remaining) else {
                throw reader.error(.truncated, "aranges set of \(length) bytes, \(reader.remaining) remain", at: offset)
            }
            let end = reader.offset + Int(length)
            reader = ByteReader(UnsafeRawBufferPointer(rebasing: section.bytes[0..<end]), at: reader.offset, region: section.region)
            let version = try reader.u16("aranges version")
            guard version == 2 || version == 3 else {
                throw reader.error(.unsupported, "aranges version \(version)", at: offset)
            }
            let unitOffset = try reader.unsigned(size: offsetSize, "aranges debug_info_offset")
            let addressSize = Int(try reader.u8("aranges address_size"))
            let segmentSize = try reader.u8("aranges segment_selector_size")
            guard addressSize == 4 || addressSize == 8 || addressSize == 2, segmentSize == 0 else {
                throw reader.error(.unsupported, "aranges with address size \(addressSize) and segment size \(segmentSize)", at: offset)
            }
            let tupleSize = 2 * addressSize
            var first = offset
            while first < reader.offset { first += tupleSize }
            reader.offset = first
            var pending: [(UInt64, UInt64)] = []
            var terminated = false
            while reader.offset < end {
                let address = try reader.unsigned(size: addressSize, "aranges address")
                let size = try reader.unsigned(size: addressSize, "aranges length")
                // A (0, 0) tuple ends the set; one before the end is skipped, as llvm does.
                if address == 0 && size == 0 && reader.offset == end { terminated = true; break }
                pending.append((address, address &+ size))
            }
            guard terminated else {
                throw reader.error(.malformed, "aranges set is not terminated by a (0, 0) tuple", at: offset)
            }
            for (low, high) in pending { range(Int(clamping: unitOffset), low, high) }
            described(Int(clamping: unitOffset))
            offset = end
        }
    }
}

/// A binary min-heap of integers (unit offsets), for the overlap resolution above.
struct MinimumHeap {
    private var items: [Int] = []

    var minimum: Int? { items.first }

    mutating func insert(_ value: Int) {
        items.append(value)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeMinimum() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            if smallest == parent { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
