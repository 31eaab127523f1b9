/// What the symbolizer needs from one `DW_TAG_subprogram` or `DW_TAG_inlined_subroutine` DIE,
/// with strings and addresses already resolved through the unit's bases.
///
/// Each attribute is the DIE's first of that name, as a DWARF consumer's `find` returns it.
struct SubroutineRecord {
    /// Offset of the DIE in `.debug_info`.
    var offset: Int
    /// Index of the unit in ``DWARFDebugInfo/units``.
    var unit: Int32
    /// The nearest enclosing subprogram or inlined subroutine (a record index), or -1.
    var parent: Int32
    var isSubprogram: Bool
    var name: ByteString = .absent
    var linkageName: ByteString = .absent
    /// `DW_AT_low_pc` when it is an address form that resolves.
    var lowPC: UInt64?
    /// Whether `DW_AT_low_pc` is present at all (even if it does not resolve).
    var hasLowPCAttribute = false
    /// `DW_AT_high_pc`: an address (`highPCIsOffset == false`) or an offset from low_pc.
    var highPC: UInt64?
    var highPCIsOffset = false
    /// `DW_AT_ranges`: a section offset, or an index (`rangesIsIndex`) into the rnglists offsets.
    var ranges: UInt64?
    var rangesIsIndex = false
    /// `.debug_info` offsets of `DW_AT_abstract_origin` and `DW_AT_specification` targets.
    var abstractOrigin: UInt64?
    var specification: UInt64?
    /// `DW_AT_call_file` and `DW_AT_call_line`, 0 when absent (truncated to 32 bits as llvm does).
    var callFile: UInt32 = 0
    var callLine: UInt32 = 0
}

/// The attributes of a unit's DIE that the rest of the unit depends on.
struct UnitAttributes {
    var name: ByteString = .absent
    var compDir: ByteString = .absent
    var stmtList: UInt64?
    var strOffsetsBase: UInt64?
    var addrBase: UInt64?
    var rnglistsBase: UInt64?
    /// `DW_AT_low_pc` (or `DW_AT_entry_pc`), the base of the unit's range lists.
    var baseAddress: UInt64?
    /// The unit DIE's own address ranges (low/high pc or `DW_AT_ranges`), for aranges.
    var lowPC: UInt64?
    var highPC: UInt64?
    var highPCIsOffset = false
    var hasLowPCAttribute = false
    var ranges: UInt64?
    var rangesIsIndex = false
    /// Index of the unit's abbreviation table in ``DWARFDebugInfo/abbreviationTables``.
    var abbreviations: Int = -1
    /// The unit's subroutine records: a range of ``DWARFDebugInfo/records``.
    var records: Range<Int> = 0..<0
}
