/// The parsed `.debug_info` of one slice: every unit's header and key attributes, and a record
/// for every subprogram and inlined subroutine DIE, in DIE order (a preorder of each unit).
///
/// Reading walks every DIE once, skipping the attributes of uninteresting DIEs by their forms.
/// A unit that cannot be read to its end keeps the records read before the problem, and the
/// problem is added to ``diagnostics``. Memory: one ``SubroutineRecord`` per subroutine DIE.
final class DWARFDebugInfo {
    let sections: DWARFSections
    private(set) var units: [DWARFUnit] = []
    private(set) var attributes: [UnitAttributes] = []
    private(set) var abbreviationTables: [AbbreviationTable] = []
    private(set) var records: [SubroutineRecord] = []
    var diagnostics: [SymbolsError] = []
    /// Name attributes decoded on demand for DIEs that are not subroutines.
    var decodedNames: [Int: NameAttributes?] = [:]

    private struct AbbreviationKey: Hashable {
        var offset: UInt64
        var addressSize: Int
        var offsetSize: Int
        var version: UInt16
    }
    private var abbreviationIndex: [AbbreviationKey: Int] = [:]

    /// DIE nesting deeper than this is treated as malformed (real DWARF stays under ~50).
    static let maximumDepth = 4096

    init(sections: DWARFSections) {
        self.sections = sections
        units = DWARFUnit.readHeaders(sections.info, diagnostics: &diagnostics)
        attributes.reserveCapacity(units.count)
        for index in units.indices {
            var unitAttributes = UnitAttributes()
            let first = records.count
            do throws(SymbolsError) {
                try walk(unit: index, into: &unitAttributes)
            } catch {
                diagnostics.append(error)
            }
            unitAttributes.records = first..<records.count
            attributes.append(unitAttributes)
        }
    }

    // MARK: Walking

    private func abbreviations(for unit: DWARFUnit) throws(SymbolsError) -> Int {
        let key = AbbreviationKey(offset: unit.abbreviationOffset, addressSize: unit.addressSize,
                                  offsetSize: unit.offsetSize, version: unit.version)
        if let index = abbreviationIndex[key] { return index }
        let table = try AbbreviationTable(section: sections.abbrev, offset: unit.abbreviationOffset,
                                          addressSize: unit.addressSize, offsetSize: unit.offsetSize, version: unit.version)
        abbreviationTables.append(table)
        abbreviationIndex[key] = abbreviationTables.count - 1
        return abbreviationTables.count - 1
    }

    private func walk(unit index: Int, into unitAttributes: inout UnitAttributes) throws(SymbolsError) {
        let unit = units[index]
        let tableIndex = try abbreviations(for: unit)
        unitAttributes.abbreviations = tableIndex
        // A buffer that ends with the unit, so no read can run into the next one; offsets stay
        // section offsets.
        let bytes = UnsafeRawBufferPointer(rebasing: sections.info.bytes[0..<unit.end])
        var reader = ByteReader(bytes, at: unit.firstDIE, region: sections.info.region)
        let addressSize = unit.addressSize, offsetSize = unit.offsetSize, version = unit.version

        // The unit DIE: read its attributes raw first, since the bases it declares apply to
        // its own strx/addrx attributes too.
        guard reader.offset < unit.end else { return }
        let unitCode = try reader.uleb("abbreviation code")
        if unitCode == 0 { return }
        let table = abbreviationTables[tableIndex]
        guard let unitAbbreviation = table.abbreviation(code: unitCode) else {
            throw reader.error(.malformed, "abbreviation code \(unitCode) is not in the unit's table", at: unit.firstDIE)
        }
        try readUnitDIE(abbreviation: unitAbbreviation, table: table, reader: &reader, unit: unit, into: &unitAttributes)
        let resolved = unitAttributes
        guard unitAbbreviation.hasChildren else { return }

        var depth = 1
        // parents[d] = the nearest subroutine record enclosing depth d (-1 for none).
        var parents: [Int32] = [-1]
        let unitNumber = Int32(index)
        while reader.offset < unit.end {
            let dieOffset = reader.offset
            let code = try reader.uleb("abbreviation code")
            if code == 0 {
                depth -= 1
                parents.removeLast()
                if depth == 0 { return }
                continue
            }
            guard let abbreviation = table.abbreviation(code: code) else {
                throw reader.error(.malformed, "abbreviation code \(code) is not in the unit's table", at: dieOffset)
            }
            var enclosing = parents[parents.count - 1]
            if abbreviation.isSubroutine {
                var record = SubroutineRecord(offset: dieOffset, unit: unitNumber, parent: enclosing,
                                              isSubprogram: abbreviation.tag == DW.tagSubprogram)
                try readSubroutineDIE(abbreviation: abbreviation, table: table, reader: &reader, unit: unit,
                                      unitAttributes: resolved, into: &record)
                records.append(record)
                enclosing = Int32(records.count - 1)
            } else if abbreviation.fixedSize >= 0 {
                try reader.skip(abbreviation.fixedSize, "DIE attributes")
            } else {
                let end = abbreviation.firstSpecification + abbreviation.specificationCount
                var specification = abbreviation.firstSpecification
                while specification < end {
                    try FormValue.skip(form: table.specifications[specification].form, reader: &reader,
                                       addressSize: addressSize, offsetSize: offsetSize, version: version)
                    specification += 1
                }
            }
            if abbreviation.hasChildren {
                depth += 1
                guard depth <= DWARFDebugInfo.maximumDepth else {
                    throw reader.error(.limitExceeded, "DIEs nest deeper than \(DWARFDebugInfo.maximumDepth) levels", at: dieOffset)
                }
                parents.append(enclosing)
            }
        }
    }

    private func readUnitDIE(abbreviation: AbbreviationTable.Abbreviation, table: AbbreviationTable,
                             reader: inout ByteReader, unit: DWARFUnit, into result: inout UnitAttributes) throws(SymbolsError) {
        var name: FormValue?, compDir: FormValue?, lowPC: FormValue?, highPC: FormValue?, basePC: FormValue?
        var ranges: FormValue?
        let end = abbreviation.firstSpecification + abbreviation.specificationCount
        for index in abbreviation.firstSpecification..<end {
            let specification = table.specifications[index]
            let value = try FormValue.read(form: specification.form, implicitConstant: specification.implicitConstant,
                                           reader: &reader, addressSize: unit.addressSize, offsetSize: unit.offsetSize,
                                           version: unit.version)
            switch specification.attribute {
            case DW.atName: if name == nil { name = value }
            case DW.atCompDir: if compDir == nil { compDir = value }
            case DW.atStmtList: if result.stmtList == nil { result.stmtList = value.sectionOffset(version: unit.version) }
            case DW.atLowPC:
                if lowPC == nil { lowPC = value }
                if basePC == nil { basePC = value }
            case DW.atEntryPC: if basePC == nil { basePC = value }
            case DW.atHighPC: if highPC == nil { highPC = value }
            case DW.atRanges: if ranges == nil { ranges = value }
            case DW.atStrOffsetsBase: if result.strOffsetsBase == nil { result.strOffsetsBase = value.sectionOffset(version: 5) }
            case DW.atAddrBase, DW.atGNUAddrBase: if result.addrBase == nil { result.addrBase = value.sectionOffset(version: 5) }
            case DW.atRnglistsBase: if result.rnglistsBase == nil { result.rnglistsBase = value.sectionOffset(version: 5) }
            default: break
            }
        }
        // The bases are known now.
        if let name { result.name = string(name, unit: unit, attributes: result) }
        if let compDir { result.compDir = string(compDir, unit: unit, attributes: result) }
        if let basePC { result.baseAddress = address(basePC, unit: unit, attributes: result) }
        if let lowPC {
            result.hasLowPCAttribute = true
            result.lowPC = address(lowPC, unit: unit, attributes: result)
        }
        if let highPC { (result.highPC, result.highPCIsOffset) = highPCValue(highPC, unit: unit, attributes: result) }
        if let ranges { (result.ranges, result.rangesIsIndex) = rangesValue(ranges, unit: unit) }
    }

    private func readSubroutineDIE(abbreviation: AbbreviationTable.Abbreviation, table: AbbreviationTable,
                                   reader: inout ByteReader, unit: DWARFUnit, unitAttributes: UnitAttributes,
                                   into record: inout SubroutineRecord) throws(SymbolsError) {
        var seenName = false, seenLinkage = false, seenLow = false, seenHigh = false, seenRanges = false
        var seenOrigin = false, seenSpecification = false, seenFile = false, seenLine = false
        let end = abbreviation.firstSpecification + abbreviation.specificationCount
        var index = abbreviation.firstSpecification
        while index < end {
            let specification = table.specifications[index]
            index += 1
            switch specification.attribute {
            case DW.atName, DW.atLinkageName, DW.atMIPSLinkageName, DW.atLowPC, DW.atHighPC, DW.atRanges,
                 DW.atAbstractOrigin, DW.atSpecification, DW.atCallFile, DW.atCallLine:
                break
            default:
                try FormValue.skip(form: specification.form, reader: &reader, addressSize: unit.addressSize,
                                   offsetSize: unit.offsetSize, version: unit.version)
                continue
            }
            let value = try FormValue.read(form: specification.form, implicitConstant: specification.implicitConstant,
                                           reader: &reader, addressSize: unit.addressSize, offsetSize: unit.offsetSize,
                                           version: unit.version)
            switch specification.attribute {
            case DW.atName:
                if !seenName { seenName = true; record.name = string(value, unit: unit, attributes: unitAttributes) }
            case DW.atLinkageName, DW.atMIPSLinkageName:
                if !seenLinkage { seenLinkage = true; record.linkageName = string(value, unit: unit, attributes: unitAttributes) }
            case DW.atLowPC:
                if !seenLow {
                    seenLow = true
                    record.hasLowPCAttribute = true
                    record.lowPC = address(value, unit: unit, attributes: unitAttributes)
                }
            case DW.atHighPC:
                if !seenHigh {
                    seenHigh = true
                    (record.highPC, record.highPCIsOffset) = highPCValue(value, unit: unit, attributes: unitAttributes)
                }
            case DW.atRanges:
                if !seenRanges { seenRanges = true; (record.ranges, record.rangesIsIndex) = rangesValue(value, unit: unit) }
            case DW.atAbstractOrigin:
                if !seenOrigin { seenOrigin = true; record.abstractOrigin = reference(value, unit: unit) }
            case DW.atSpecification:
                if !seenSpecification { seenSpecification = true; record.specification = reference(value, unit: unit) }
            case DW.atCallFile:
                if !seenFile { seenFile = true; record.callFile = UInt32(truncatingIfNeeded: value.unsignedConstant ?? 0) }
            case DW.atCallLine:
                if !seenLine { seenLine = true; record.callLine = UInt32(truncatingIfNeeded: value.unsignedConstant ?? 0) }
            default:
                break
            }
        }
    }

    // MARK: Resolving forms

    /// The string an attribute names, or `.absent` when the form is not a string or does not resolve.
    func string(_ value: FormValue, unit: DWARFUnit, attributes unitAttributes: UnitAttributes) -> ByteString {
        switch value.form {
        case DW.formString:
            return ByteReader.cString(in: sections.info.bytes, at: Int(clamping: value.value)).map(ByteString.init) ?? .absent
        case DW.formStrp:
            return ByteReader.cString(in: sections.str.bytes, at: Int(clamping: value.value)).map(ByteString.init) ?? .absent
        case DW.formLineStrp:
            return ByteReader.cString(in: sections.lineStr.bytes, at: Int(clamping: value.value)).map(ByteString.init) ?? .absent
        case DW.formStrx, DW.formStrx1, DW.formStrx2, DW.formStrx3, DW.formStrx4, DW.formGNUStrIndex:
            guard let offset = stringOffset(index: value.value, unit: unit, attributes: unitAttributes) else { return .absent }
            return ByteReader.cString(in: sections.str.bytes, at: Int(clamping: offset)).map(ByteString.init) ?? .absent
        default:
            return .absent
        }
    }

    /// The `.debug_str` offset at `index` of the unit's `.debug_str_offsets` contribution.
    func stringOffset(index: UInt64, unit: DWARFUnit, attributes unitAttributes: UnitAttributes) -> UInt64? {
        let base: UInt64
        if let explicit = unitAttributes.strOffsetsBase {
            base = explicit
        } else if unit.version < 5 {
            base = 0 // pre-standard split DWARF (DW_FORM_GNU_str_index) starts at 0
        } else {
            return nil
        }
        let (product, overflow) = index.multipliedReportingOverflow(by: UInt64(unit.offsetSize))
        guard !overflow else { return nil }
        let (position, overflow2) = base.addingReportingOverflow(product)
        guard !overflow2, position <= UInt64(sections.strOffsets.bytes.count),
              UInt64(unit.offsetSize) <= UInt64(sections.strOffsets.bytes.count) - position else { return nil }
        var reader = sections.strOffsets.reader(at: Int(position))
        return try? reader.unsigned(size: unit.offsetSize, "string offset")
    }

    /// The address an attribute names (DW_FORM_addr, or an index into `.debug_addr`).
    func address(_ value: FormValue, unit: DWARFUnit, attributes unitAttributes: UnitAttributes) -> UInt64? {
        switch value.form {
        case DW.formAddr:
            return value.value
        case DW.formAddrx, DW.formAddrx1, DW.formAddrx2, DW.formAddrx3, DW.formAddrx4, DW.formGNUAddrIndex:
            return indexedAddress(value.value, unit: unit, attributes: unitAttributes)
        case DW.formLLVMAddrxOffset:
            return indexedAddress(value.value, unit: unit, attributes: unitAttributes).map { $0 &+ value.extra }
        default:
            return nil
        }
    }

    /// Entry `index` of the unit's `.debug_addr` contribution.
    func indexedAddress(_ index: UInt64, unit: DWARFUnit, attributes unitAttributes: UnitAttributes) -> UInt64? {
        guard let base = unitAttributes.addrBase else { return nil }
        let (product, overflow) = index.multipliedReportingOverflow(by: UInt64(unit.addressSize))
        guard !overflow else { return nil }
        let (position, overflow2) = base.addingReportingOverflow(product)
        guard !overflow2, position <= UInt64(sections.addr.bytes.count),
              UInt64(unit.addressSize) <= UInt64(sections.addr.bytes.count) - position else { return nil }
        var reader = sections.addr.reader(at: Int(position))
        return try? reader.unsigned(size: unit.addressSize, "address")
    }

    private func highPCValue(_ value: FormValue, unit: DWARFUnit, attributes unitAttributes: UnitAttributes) -> (UInt64?, Bool) {
        if value.isAddressForm { return (address(value, unit: unit, attributes: unitAttributes), false) }
        if let constant = value.unsignedConstant { return (constant, true) }
        return (nil, false)
    }

    private func rangesValue(_ value: FormValue, unit: DWARFUnit) -> (UInt64?, Bool) {
        if value.form == DW.formRnglistx { return (value.value, true) }
        return (value.sectionOffset(version: unit.version), false)
    }

    /// The `.debug_info` offset a reference attribute points to, or `nil` for references into
    /// other files (type signatures, supplementary and alternate files).
    func reference(_ value: FormValue, unit: DWARFUnit) -> UInt64? {
        switch value.form {
        case DW.formRef1, DW.formRef2, DW.formRef4, DW.formRef8, DW.formRefUdata:
            let (target, overflow) = UInt64(unit.offset).addingReportingOverflow(value.value)
            return overflow ? nil : target
        case DW.formRefAddr:
            return value.value
        default:
            return nil
        }
    }
}
