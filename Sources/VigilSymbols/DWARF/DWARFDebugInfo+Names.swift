/// The attributes a name search reads from a DIE: its names and the DIEs it refers to.
struct NameAttributes {
    var name: ByteString = .absent
    var linkageName: ByteString = .absent
    var abstractOrigin: UInt64?
    var specification: UInt64?
}

extension DWARFDebugInfo {
    /// The name attributes of the DIE at `offset` in `.debug_info`: from its record when it is a
    /// subroutine, else decoded on demand (any tag can be the target of a reference). `nil` when
    /// no DIE can be read there.
    func nameAttributes(at offset: Int) -> NameAttributes? {
        if let index = recordIndex(at: offset) {
            let record = records[index]
            return NameAttributes(name: record.name, linkageName: record.linkageName,
                                  abstractOrigin: record.abstractOrigin, specification: record.specification)
        }
        if let cached = decodedNames[offset] { return cached }
        let decoded = try? decodeNameAttributes(at: offset)
        decodedNames[offset] = decoded
        return decoded
    }

    /// The index of the record of the DIE at `offset`, if it is a subroutine.
    func recordIndex(at offset: Int) -> Int? {
        var low = 0, high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].offset < offset { low = middle + 1 } else { high = middle }
        }
        return low < records.count && records[low].offset == offset ? low : nil
    }

    private func decodeNameAttributes(at offset: Int) throws(SymbolsError) -> NameAttributes? {
        guard let unitIndex = SymbolMapBuilder.unitIndex(containing: offset, in: self) else { return nil }
        let unit = units[unitIndex]
        let unitAttributes = attributes[unitIndex]
        guard offset >= unit.firstDIE, unitAttributes.abbreviations >= 0 else { return nil }
        let table = abbreviationTables[unitAttributes.abbreviations]
        let bytes = UnsafeRawBufferPointer(rebasing: sections.info.bytes[0..<unit.end])
        var reader = ByteReader(bytes, at: offset, region: sections.info.region)
        let code = try reader.uleb("abbreviation code")
        guard code != 0, let abbreviation = table.abbreviation(code: code) else { return nil }
        var result = NameAttributes()
        var seenName = false, seenLinkage = false, seenOrigin = false, seenSpecification = false
        for index in abbreviation.firstSpecification..<(abbreviation.firstSpecification + abbreviation.specificationCount) {
            let specification = table.specifications[index]
            let value = try FormValue.read(form: specification.form, implicitConstant: specification.implicitConstant,
                                           reader: &reader, addressSize: unit.addressSize, offsetSize: unit.offsetSize,
                                           version: unit.version)
            switch specification.attribute {
            case DW.atName:
                if !seenName { seenName = true; result.name = string(value, unit: unit, attributes: unitAttributes) }
            case DW.atLinkageName, DW.atMIPSLinkageName:
                if !seenLinkage { seenLinkage = true; result.linkageName = string(value, unit: unit, attributes: unitAttributes) }
            case DW.atAbstractOrigin:
                if !seenOrigin { seenOrigin = true; result.abstractOrigin = reference(value, unit: unit) }
            case DW.atSpecification:
                if !seenSpecification { seenSpecification = true; result.specification = reference(value, unit: unit) }
            default:
                break
            }
        }
        return result
    }
}
