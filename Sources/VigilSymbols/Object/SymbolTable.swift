/// A slice's function and data symbols, sorted by address, with sizes — the fallback names
/// when DWARF is missing, and the outermost frame's name when it is present.
///
/// Follows `llvm-symbolizer`'s rules so that the differential tests compare like with like:
/// Mach-O symbols are `N_SECT` entries (not stabs), named without their leading `_`, sized as
/// the distance to the next entry of the same section (or the section's end); ELF symbols are
/// `STT_FUNC`/`OBJECT`/`NOTYPE`/`GNU_IFUNC` entries defined in a section, sized by `st_size`
/// (0 meaning "up to the next symbol"). Names stay in the file's bytes (no copies).
struct SymbolTable {
    /// One symbol: its address, size (0: unknown) and name bytes at `nameOffset` in the file;
    /// for ELF local symbols, the name of the `STT_FILE` symbol before it (-1 length: none),
    /// which llvm reports as the file when DWARF has none.
    struct Entry {
        var address: UInt64
        var size: UInt64
        var nameOffset: Int
        var nameLength: Int
        var fileNameOffset: Int = 0
        var fileNameLength: Int = -1
    }

    /// Sorted by (address, size), stable with respect to the symbol table's order.
    private(set) var entries: [Entry]

    init(entries: [Entry]) {
        // Stable sort on (address, size): sort indices, break ties by position.
        let indexed = entries.enumerated().sorted { left, right in
            if left.element.address != right.element.address { return left.element.address < right.element.address }
            if left.element.size != right.element.size { return left.element.size < right.element.size }
            return left.offset < right.offset
        }
        self.entries = indexed.map(\.element)
    }

    /// The index of the symbol covering `address`: the last one starting at or before it,
    /// provided its size (when known) reaches the address.
    func index(covering address: UInt64) -> Int? {
        var low = 0
        var high = entries.count
        while low < high { // first entry with address > `address`
            let middle = (low + high) / 2
            if entries[middle].address <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let entry = entries[low - 1]
        if entry.size != 0, entry.address &+ entry.size <= address { return nil }
        return low - 1
    }

    /// The addresses at which ``index(covering:)`` can change: every start and every end.
    func boundaries(into output: inout [UInt64]) {
        for entry in entries {
            output.append(entry.address)
            if entry.size != 0 { output.append(entry.address &+ entry.size) }
        }
    }
}

extension ObjectSlice {
    /// Reads the symbol table; an empty table when there is none. Problems with single entries
    /// (a name outside the string table) skip that entry and are reported in `diagnostics`.
    func loadSymbolTable(diagnostics: inout [SymbolsError]) throws(SymbolsError) -> SymbolTable {
        switch parsed.symbolTable {
        case nil:
            return SymbolTable(entries: [])
        case .machO(let symbolsOffset, let count, let stringsOffset, let stringsSize, let is64Bit):
            return try machOSymbols(symbolsOffset: symbolsOffset, count: count, stringsOffset: stringsOffset,
                                    stringsSize: stringsSize, is64Bit: is64Bit, diagnostics: &diagnostics)
        case .elf(let symbols, let strings):
            return try elfSymbols(symbolSection: symbols, stringSection: strings, diagnostics: &diagnostics)
        }
    }

    private func machOSymbols(symbolsOffset: UInt64, count: UInt32, stringsOffset: UInt64, stringsSize: UInt32,
                              is64Bit: Bool, diagnostics: inout [SymbolsError]) throws(SymbolsError) -> SymbolTable {
        let file = storage.bytes
        let entrySize = is64Bit ? 16 : 12
        let strings = UnsafeRawBufferPointer(rebasing: file[Int(stringsOffset)..<Int(stringsOffset + UInt64(stringsSize))])
        struct Raw {
            var nameIndex: UInt32
            var type: UInt8
            var section: UInt8
            var value: UInt64
        }
        var raws: [Raw] = []
        raws.reserveCapacity(Int(count))
        var reader = ByteReader(file, at: Int(symbolsOffset), region: .file)
        for _ in 0..<count {
            let nameIndex = try reader.u32("n_strx")
            let type = try reader.u8("n_type")
            let section = try reader.u8("n_sect")
            _ = try reader.u16("n_desc")
            let value = is64Bit ? try reader.u64("n_value") : UInt64(try reader.u32("n_value"))
            raws.append(Raw(nameIndex: nameIndex, type: type, section: section, value: value))
        }
        _ = entrySize

        // Sizes: the gap to the next entry of the same section, every entry (stabs included)
        // and every section's end taking part, as llvm's computeSymbolSizes does.
        struct Point { var section: UInt32; var address: UInt64; var symbol: Int } // symbol -1: a section's end
        var points: [Point] = []
        points.reserveCapacity(raws.count + parsed.sections.count)
        for (index, raw) in raws.enumerated() {
            points.append(Point(section: UInt32(raw.section) &- 1, address: raw.value, symbol: index))
        }
        for (index, section) in parsed.sections.enumerated() {
            points.append(Point(section: UInt32(index), address: section.address &+ section.size, symbol: -1))
        }
        points.sort { $0.section != $1.section ? $0.section < $1.section : $0.address < $1.address }
        var sizes = [UInt64](repeating: 0, count: raws.count)
        if points.count > 1 {
            let last = points.count - 1
            var next = 0
            for index in 0..<last where points[index].symbol >= 0 {
                if next <= index {
                    next = index + 1
                    while next < last, points[next].address == points[index].address { next += 1 }
                }
                sizes[points[index].symbol] = points[next].address &- points[index].address
            }
            // The very last entry keeps its address as its "size" in llvm; it is never a
            // defined symbol in practice (undefined and NO_SECT entries sort last).
            if points[last].symbol >= 0 { sizes[points[last].symbol] = points[last].address }
        }

        var entries: [SymbolTable.Entry] = []
        entries.reserveCapacity(raws.count)
        let sectionCount = parsed.sections.count
        for (index, raw) in raws.enumerated() {
            // N_SECT, not a stab, in a section that exists.
            guard raw.type & 0xe0 == 0, raw.type & 0x0e == 0x0e, raw.section != 0 else { continue }
            guard Int(raw.section) <= sectionCount else {
                diagnostics.append(SymbolsError(.malformed, "symbol \(index) names section \(raw.section), the file has \(sectionCount)",
                                                fileOffset: symbolsOffset + UInt64(index * entrySize), path: path))
                continue
            }
            guard raw.nameIndex < stringsSize, let name = ByteReader.cString(in: strings, at: Int(raw.nameIndex)) else {
                diagnostics.append(SymbolsError(.outOfBounds, "symbol \(index) name index \(raw.nameIndex) is outside the \(stringsSize)-byte string table",
                                                fileOffset: symbolsOffset + UInt64(index * entrySize), path: path))
                continue
            }
            var nameOffset = Int(stringsOffset) + Int(raw.nameIndex)
            var nameLength = name.count
            if nameLength > 0, name[0] == UInt8(ascii: "_") { nameOffset += 1; nameLength -= 1 }
            entries.append(SymbolTable.Entry(address: raw.value, size: sizes[index], nameOffset: nameOffset, nameLength: nameLength))
        }
        return SymbolTable(entries: entries)
    }

    private func elfSymbols(symbolSection: Int, stringSection: Int, diagnostics: inout [SymbolsError]) throws(SymbolsError) -> SymbolTable {
        guard let table = parsed.sections.first(where: { $0.index == symbolSection }),
              let names = parsed.sections.first(where: { $0.index == stringSection }) else {
            return SymbolTable(entries: [])
        }
        let (symbols, symbolRegion, symbolOwner) = try contents(of: table)
        let (strings, _, stringOwner) = try contents(of: names)
        defer { withExtendedLifetime((symbolOwner, stringOwner)) {} }
        guard symbolOwner == nil, stringOwner == nil, let stringsStart = names.fileOffset else {
            throw SymbolsError(.unsupported, "compressed symbol tables are not supported", fileOffset: table.fileOffset, path: path)
        }
        let maximumIndex = parsed.sections.map(\.index).max() ?? 0
        let sectionAddresses = Dictionary(parsed.sections.map { ($0.index, $0.address) }, uniquingKeysWith: { first, _ in first })
        var reader = ByteReader(symbols, region: symbolRegion)
        var entries: [SymbolTable.Entry] = []
        entries.reserveCapacity(symbols.count / 24)
        var index = 0
        var fileSymbol: (Int, Int)? // the latest STT_FILE name: file offset, length
        while reader.remaining >= 24 {
            let start = reader.offset
            let nameIndex = try reader.u32("st_name")
            let info = try reader.u8("st_info")
            _ = try reader.u8("st_other")
            let sectionIndex = try reader.u16("st_shndx")
            var value = try reader.u64("st_value")
            let size = try reader.u64("st_size")
            defer { index += 1 }
            guard index > 0 else { continue } // the null symbol
            let type = info & 0xf
            if type == 4 { // STT_FILE
                if let name = ByteReader.cString(in: strings, at: Int(nameIndex)) {
                    fileSymbol = (Int(stringsStart) + Int(nameIndex), name.count)
                }
                continue
            }
            guard type == 0 || type == 1 || type == 2 || type == 10 else { continue } // NOTYPE FUNC OBJECT GNU_IFUNC
            guard sectionIndex != 0, sectionIndex < 0xff00 else { continue } // undefined, ABS, COMMON, XINDEX
            guard Int(sectionIndex) <= maximumIndex else {
                diagnostics.append(symbolRegion.error(.malformed, "symbol \(index) names section \(sectionIndex), which does not exist", at: start))
                continue
            }
            guard let name = ByteReader.cString(in: strings, at: Int(nameIndex)) else {
                diagnostics.append(symbolRegion.error(.outOfBounds, "symbol \(index) name index \(nameIndex) is outside the string table", at: start))
                continue
            }
            if isMappingSymbol(name) { continue }
            if parsed.isRelocatable { value &+= sectionAddresses[Int(sectionIndex)] ?? 0 }
            var entry = SymbolTable.Entry(address: value, size: size, nameOffset: Int(stringsStart) + Int(nameIndex),
                                          nameLength: name.count)
            if info >> 4 == 0, let fileSymbol { // STB_LOCAL
                entry.fileNameOffset = fileSymbol.0
                entry.fileNameLength = fileSymbol.1
            }
            entries.append(entry)
        }
        return SymbolTable(entries: entries)
    }

    /// ARM and AArch64 mapping symbols (`$x`, `$d`, `$a`, `$t`, optionally `.suffix`) mark code and
    /// data regions, not functions.
    private func isMappingSymbol(_ name: UnsafeRawBufferPointer) -> Bool {
        guard parsed.elfMachine == 183 || parsed.elfMachine == 40, name.count >= 2, name[0] == UInt8(ascii: "$") else { return false }
        let letters: Set<UInt8> = parsed.elfMachine == 183 ? [UInt8(ascii: "x"), UInt8(ascii: "d")]
            : [UInt8(ascii: "a"), UInt8(ascii: "t"), UInt8(ascii: "d")]
        return letters.contains(name[1]) && (name.count == 2 || name[2] == UInt8(ascii: "."))
    }
}
