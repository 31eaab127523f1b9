/// A unit header in `.debug_info` (DWARF 2–5, 32- and 64-bit formats).
struct DWARFUnit {
    /// The offset of the unit header in `.debug_info`.
    var offset: Int
    /// The offset just past the unit (the next unit's header).
    var end: Int
    /// The offset of the first DIE.
    var firstDIE: Int
    var version: UInt16
    var unitType: UInt8
    var addressSize: Int
    /// 4 for 32-bit DWARF, 8 for 64-bit DWARF.
    var offsetSize: Int
    var abbreviationOffset: UInt64

    /// Whether llvm counts it among compile units (compile, partial, skeleton), as opposed to
    /// type and split units.
    var isCompileUnit: Bool {
        unitType == DW.unitCompile || unitType == DW.unitPartial || unitType == DW.unitSkeleton
    }

    /// Reads every unit header of `.debug_info`. A malformed header ends the list (the units
    /// before it stay usable) and is reported in `diagnostics`.
    static func readHeaders(_ section: DWARFSections.Section, diagnostics: inout [SymbolsError]) -> [DWARFUnit] {
        var units: [DWARFUnit] = []
        var offset = 0
        while offset < section.bytes.count {
            do throws(SymbolsError) {
                let unit = try readHeader(section, at: offset)
                units.append(unit)
                offset = unit.end
            } catch {
                diagnostics.append(error)
                break
            }
        }
        return units
    }

    static func readHeader(_ section: DWARFSections.Section, at offset: Int) throws(SymbolsError) -> DWARFUnit {
        var reader = section.reader(at: offset)
        var length = UInt64(try reader.u32("unit_length"))
        var offsetSize = 4
        if length == 0xffff_ffff {
            length = try reader.u64("unit_length (64-bit)")
            offsetSize = 8
        } else if length >= 0xffff_fff0 {
            throw reader.error(.malformed, "reserved unit_length 0x\(String(length, radix: 16))", at: offset)
        }
        let contentStart = reader.offset
        guard length <= UInt64(reader.remaining) else {
            throw reader.error(.truncated, "unit of \(length) bytes, \(reader.remaining) remain in the section", at: offset)
        }
        let end = contentStart + Int(length)
        let version = try reader.u16("unit version")
        guard (2...5).contains(version) else {
            throw reader.error(.unsupported, "DWARF version \(version) unit", at: offset)
        }
        var unitType = DW.unitCompile
        var addressSize: Int
        let abbreviationOffset: UInt64
        if version >= 5 {
            unitType = try reader.u8("unit_type")
            addressSize = Int(try reader.u8("address_size"))
            abbreviationOffset = try reader.unsigned(size: offsetSize, "debug_abbrev_offset")
            switch unitType {
            case DW.unitSkeleton, DW.unitSplitCompile: try reader.skip(8, "dwo_id")
            case DW.unitType, DW.unitSplitType: try reader.skip(8 + offsetSize, "type signature and offset")
            default: break
            }
        } else {
            abbreviationOffset = try reader.unsigned(size: offsetSize, "debug_abbrev_offset")
            addressSize = Int(try reader.u8("address_size"))
        }
        guard addressSize == 4 || addressSize == 8 || addressSize == 2 else {
            throw reader.error(.unsupported, "address size \(addressSize)", at: offset)
        }
        guard reader.offset <= end else {
            throw reader.error(.truncated, "unit header is longer than the unit", at: offset)
        }
        return DWARFUnit(offset: offset, end: end, firstDIE: reader.offset, version: version, unitType: unitType,
                         addressSize: addressSize, offsetSize: offsetSize, abbreviationOffset: abbreviationOffset)
    }
}
