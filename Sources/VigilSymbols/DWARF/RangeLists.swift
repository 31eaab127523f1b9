/// Address ranges of DIEs: `DW_AT_low_pc`/`DW_AT_high_pc`, `.debug_ranges` (DWARF 2–4) and
/// `.debug_rnglists` (DWARF 5), resolved to absolute `[low, high)` pairs the way llvm does
/// (base address selection entries, tombstones for dead code, indexes through `.debug_addr`).
enum RangeLists {
    /// A list may not have more entries than this (real lists have a handful).
    static let maximumEntries = 1 << 20

    /// The ranges of a DIE with the given resolved attributes, or an error when its range list
    /// cannot be read (the DIE then has no ranges).
    static func ranges(lowPC: UInt64?, highPC: UInt64?, highPCIsOffset: Bool, ranges rangesValue: UInt64?,
                       rangesIsIndex: Bool, unit: DWARFUnit, attributes: UnitAttributes,
                       info: DWARFDebugInfo) throws(SymbolsError) -> [(UInt64, UInt64)] {
        if let lowPC, let highPC {
            let tombstone: UInt64 = unit.addressSize >= 8 ? .max : (UInt64(1) << (UInt64(unit.addressSize) * 8)) - 1
            if lowPC != tombstone {
                return [(lowPC, highPCIsOffset ? lowPC &+ highPC : highPC)]
            }
        }
        guard var offset = rangesValue else { return [] }
        if rangesIsIndex {
            guard let resolved = rnglistOffset(index: offset, unit: unit, attributes: attributes, info: info) else {
                throw info.sections.rnglists.region.error(.outOfBounds, "DW_FORM_rnglistx index \(offset) has no offset in the unit's table", at: 0)
            }
            offset = resolved
        }
        if unit.version <= 4 {
            return try debugRanges(info.sections.ranges, offset: offset, addressSize: unit.addressSize, base: attributes.baseAddress)
        }
        return try rnglist(info: info, offset: offset, unit: unit, attributes: attributes)
    }

    /// A `.debug_ranges` list: (start, end) pairs until (0, 0), with base selection entries.
    static func debugRanges(_ section: DWARFSections.Section, offset: UInt64, addressSize: Int,
                            base initialBase: UInt64?) throws(SymbolsError) -> [(UInt64, UInt64)] {
        guard offset < UInt64(section.bytes.count) else {
            throw section.region.error(.outOfBounds, "range list offset 0x\(String(offset, radix: 16)) is outside the \(section.bytes.count)-byte section", at: section.bytes.count)
        }
        let maximum: UInt64 = addressSize >= 8 ? .max : (UInt64(1) << (UInt64(addressSize) * 8)) - 1
        let tombstone = maximum - 1
        var base = initialBase
        var reader = section.reader(at: Int(offset))
        var result: [(UInt64, UInt64)] = []
        var count = 0
        while true {
            let start = try reader.unsigned(size: addressSize, "range list start")
            let end = try reader.unsigned(size: addressSize, "range list end")
            if start == 0 && end == 0 { break }
            count += 1
            guard count <= maximumEntries else {
                throw reader.error(.limitExceeded, "range list at 0x\(String(offset, radix: 16)) has more than \(maximumEntries) entries")
            }
            if start == maximum { base = end; continue }
            if start == tombstone { continue }
            if let base {
                if base == tombstone { continue }
                result.append((start &+ base, end &+ base))
            } else {
                result.append((start, end))
            }
        }
        return result
    }

    /// A `.debug_rnglists` list at `offset`.
    static func rnglist(info: DWARFDebugInfo, offset: UInt64, unit: DWARFUnit,
                        attributes: UnitAttributes) throws(SymbolsError) -> [(UInt64, UInt64)] {
        let section = info.sections.rnglists
        guard offset < UInt64(section.bytes.count) else {
            throw section.region.error(.outOfBounds, "range list offset 0x\(String(offset, radix: 16)) is outside the \(section.bytes.count)-byte section", at: section.bytes.count)
        }
        let tombstone: UInt64 = unit.addressSize >= 8 ? .max : (UInt64(1) << (UInt64(unit.addressSize) * 8)) - 1
        var base = attributes.baseAddress
        var reader = section.reader(at: Int(offset))
        var result: [(UInt64, UInt64)] = []
        var count = 0
        func pooled(_ index: UInt64) -> UInt64? { info.indexedAddress(index, unit: unit, attributes: attributes) }
        while true {
            let kindOffset = reader.offset
            let kind = try reader.u8("range list entry kind")
            count += 1
            guard count <= maximumEntries else {
                throw reader.error(.limitExceeded, "range list at 0x\(String(offset, radix: 16)) has more than \(maximumEntries) entries")
            }
            var low: UInt64
            var high: UInt64
            switch kind {
            case DW.rleEndOfList:
                return result
            case DW.rleBaseAddressx:
                let index = try reader.uleb("DW_RLE_base_addressx index")
                base = pooled(index) ?? index
                continue
            case DW.rleBaseAddress:
                base = try reader.unsigned(size: unit.addressSize, "DW_RLE_base_address")
                continue
            case DW.rleOffsetPair:
                low = try reader.uleb("DW_RLE_offset_pair start")
                high = try reader.uleb("DW_RLE_offset_pair end")
                if low == tombstone { continue }
                if let base {
                    if base == tombstone { continue }
                    low &+= base
                    high &+= base
                }
            case DW.rleStartEnd:
                low = try reader.unsigned(size: unit.addressSize, "DW_RLE_start_end start")
                high = try reader.unsigned(size: unit.addressSize, "DW_RLE_start_end end")
            case DW.rleStartLength:
                low = try reader.unsigned(size: unit.addressSize, "DW_RLE_start_length start")
                high = low &+ (try reader.uleb("DW_RLE_start_length length"))
            case DW.rleStartxLength:
                let index = try reader.uleb("DW_RLE_startx_length index")
                let length = try reader.uleb("DW_RLE_startx_length length")
                low = pooled(index) ?? 0
                high = low &+ length
            case DW.rleStartxEndx:
                let startIndex = try reader.uleb("DW_RLE_startx_endx start index")
                let endIndex = try reader.uleb("DW_RLE_startx_endx end index")
                low = pooled(startIndex) ?? 0
                high = pooled(endIndex) ?? 0
            default:
                throw reader.error(.malformed, "unknown range list entry kind \(kind)", at: kindOffset)
            }
            if low == tombstone { continue }
            result.append((low, high))
        }
    }

    /// The `.debug_rnglists` offset of entry `index` of the unit's offsets table.
    static func rnglistOffset(index: UInt64, unit: DWARFUnit, attributes: UnitAttributes, info: DWARFDebugInfo) -> UInt64? {
        guard let base = attributes.rnglistsBase else { return nil }
        let bytes = info.sections.rnglists.bytes
        // offset_entry_count is the header's last field, just before the offsets.
        guard base >= 4, base <= UInt64(bytes.count) else { return nil }
        let entryCount = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: Int(base) - 4, as: UInt32.self)))
        guard index < entryCount else { return nil }
        let position = base + index * UInt64(unit.offsetSize)
        guard position <= UInt64(bytes.count), UInt64(unit.offsetSize) <= UInt64(bytes.count) - position else { return nil }
        var reader = info.sections.rnglists.reader(at: Int(position))
        guard let relative = try? reader.unsigned(size: unit.offsetSize, "rnglists offset") else { return nil }
        let (target, overflow) = base.addingReportingOverflow(relative)
        return overflow ? nil : target
    }
}
