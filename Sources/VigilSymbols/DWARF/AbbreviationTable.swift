/// One abbreviation table of `.debug_abbrev`, decoded for a unit's address and offset sizes.
///
/// Attribute specifications are stored flat (``specifications``) so that walking DIEs touches
/// no reference-counted storage per DIE. Each abbreviation knows its fixed encoded size when
/// every form has one, which lets the walker skip uninteresting DIEs with one addition.
struct AbbreviationTable {
    /// One attribute of an abbreviation: its name, form and (for `DW_FORM_implicit_const`) value.
    struct Specification {
        var attribute: UInt64
        var form: UInt64
        var implicitConstant: Int64
    }

    /// One abbreviation.
    struct Abbreviation {
        var tag: UInt64
        var hasChildren: Bool
        /// The range of its attributes in ``specifications``.
        var firstSpecification: Int
        var specificationCount: Int
        /// The total encoded size of its attribute values when fixed, else -1.
        var fixedSize: Int
        /// `DW_TAG_subprogram` or `DW_TAG_inlined_subroutine`.
        var isSubroutine: Bool
    }

    /// An abbreviation table may not declare more than this many abbreviations.
    static let maximumAbbreviations = 1 << 20

    private(set) var specifications: [Specification] = []
    private(set) var abbreviations: [Abbreviation] = []
    /// Index into ``abbreviations`` by code, for dense codes (the usual 1…n).
    private var dense: [Int32] = []
    /// Index by code for codes too large for ``dense``.
    private var sparse: [UInt64: Int32] = [:]

    /// The abbreviation with `code`, if declared.
    @inline(__always)
    func abbreviation(code: UInt64) -> Abbreviation? {
        if code < UInt64(dense.count) {
            let index = dense[Int(code)]
            return index >= 0 ? abbreviations[Int(index)] : nil
        }
        guard let index = sparse[code] else { return nil }
        return abbreviations[Int(index)]
    }

    /// Decodes the table at `offset` for units with `addressSize`, `offsetSize` and `version`.
    init(section: DWARFSections.Section, offset: UInt64, addressSize: Int, offsetSize: Int, version: UInt16) throws(SymbolsError) {
        guard offset < UInt64(section.bytes.count) else {
            throw section.region.error(.outOfBounds, "abbreviation table offset 0x\(String(offset, radix: 16)) is outside the \(section.bytes.count)-byte section", at: section.bytes.count)
        }
        var reader = section.reader(at: Int(offset))
        while true {
            let codeOffset = reader.offset
            let code = try reader.uleb("abbreviation code")
            if code == 0 { break }
            guard abbreviations.count < AbbreviationTable.maximumAbbreviations else {
                throw reader.error(.limitExceeded, "more than \(AbbreviationTable.maximumAbbreviations) abbreviations", at: codeOffset)
            }
            let tag = try reader.uleb("abbreviation tag")
            let children = try reader.u8("DW_CHILDREN")
            let first = specifications.count
            var fixed = 0
            while true {
                let attribute = try reader.uleb("attribute name")
                let form = try reader.uleb("attribute form")
                if attribute == 0 && form == 0 { break }
                var implicit: Int64 = 0
                if form == DW.formImplicitConst { implicit = try reader.sleb("implicit_const value") }
                specifications.append(Specification(attribute: attribute, form: form, implicitConstant: implicit))
                if fixed >= 0 {
                    let size = FormValue.fixedSize(form: form, addressSize: addressSize, offsetSize: offsetSize, version: version)
                    fixed = size >= 0 ? fixed + size : -1
                }
            }
            let index = Int32(abbreviations.count)
            abbreviations.append(Abbreviation(tag: tag, hasChildren: children != 0, firstSpecification: first,
                                              specificationCount: specifications.count - first, fixedSize: fixed,
                                              isSubroutine: tag == DW.tagSubprogram || tag == DW.tagInlinedSubroutine))
            if code < 4096 {
                if dense.count <= Int(code) { dense.append(contentsOf: repeatElement(-1, count: Int(code) + 1 - dense.count)) }
                if dense[Int(code)] < 0 { dense[Int(code)] = index }
            } else if sparse[code] == nil {
                sparse[code] = index
            }
        }
    }
}
