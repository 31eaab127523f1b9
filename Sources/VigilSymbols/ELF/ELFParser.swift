/// Reads a 64-bit little-endian ELF file: header, section headers (with extended numbering),
/// program headers, the GNU build id note, `.gnu_debuglink`, the symbol table's location and
/// compressed debug sections (`SHF_COMPRESSED` zlib and zstd, and GNU `.zdebug_*`).
///
/// Every offset and count is checked against the file; errors name the header or section and
/// its file offset. Cost: one pass over the section and program headers.
enum ELFParser {
    /// More sections than this is hostile (large C++ objects with -ffunction-sections reach
    /// tens of thousands).
    static let maximumSections = 1_000_000
    static let maximumProgramHeaders = 65_535

    /// Whether the file starts with the ELF magic number.
    static func isELF(_ file: UnsafeRawBufferPointer) -> Bool {
        file.count >= 4 && file[0] == 0x7f && file[1] == UInt8(ascii: "E") && file[2] == UInt8(ascii: "L") && file[3] == UInt8(ascii: "F")
    }

    private struct SectionHeader {
        var nameOffset: UInt32
        var type: UInt32
        var flags: UInt64
        var address: UInt64
        var offset: UInt64
        var size: UInt64
        var link: UInt32
        var info: UInt32
        var headerOffset: Int
    }

    static func parse(_ file: UnsafeRawBufferPointer) throws(SymbolsError) -> ParsedSlice {
        var reader = ByteReader(file, region: .file)
        let ident = try reader.bytes(16, "ELF identification")
        guard isELF(file) else { throw reader.error(.badMagic, "not an ELF file", at: 0) }
        guard ident[4] == 2 else {
            throw reader.error(.unsupported, ident[4] == 1 ? "32-bit ELF is not supported" : "ELF class \(ident[4])", at: 4)
        }
        guard ident[5] == 1 else {
            throw reader.error(.unsupported, ident[5] == 2 ? "big-endian ELF is not supported" : "ELF data encoding \(ident[5])", at: 5)
        }
        let type = try reader.u16("e_type")
        let machine = try reader.u16("e_machine")
        _ = try reader.u32("e_version")
        _ = try reader.u64("e_entry")
        let programOffset = try reader.u64("e_phoff")
        let sectionOffset = try reader.u64("e_shoff")
        _ = try reader.u32("e_flags")
        _ = try reader.u16("e_ehsize")
        let programEntrySize = Int(try reader.u16("e_phentsize"))
        var programCount = Int(try reader.u16("e_phnum"))
        let sectionEntrySize = Int(try reader.u16("e_shentsize"))
        var sectionCount = Int(try reader.u16("e_shnum"))
        var namesIndex = Int(try reader.u16("e_shstrndx"))

        // Extended numbering lives in section header 0.
        if sectionOffset != 0 {
            guard sectionEntrySize >= 64 else {
                throw reader.error(.malformed, "e_shentsize \(sectionEntrySize) is smaller than an Elf64_Shdr", at: 0x3a)
            }
            guard sectionOffset <= UInt64(file.count), UInt64(file.count) - sectionOffset >= 64 else {
                throw reader.error(.outOfBounds, "section headers at 0x\(String(sectionOffset, radix: 16)) are outside the \(file.count)-byte file", at: 0x28)
            }
            var first = ByteReader(file, at: Int(sectionOffset), region: .file)
            let zero = try header(&first)
            if sectionCount == 0 { sectionCount = Int(clamping: zero.size) }
            if namesIndex == 0xffff { namesIndex = Int(zero.link) }
            if programCount == 0xffff { programCount = Int(zero.info) }
        } else {
            sectionCount = 0
        }
        guard sectionCount <= maximumSections else {
            throw reader.error(.limitExceeded, "\(sectionCount) sections (at most \(maximumSections))", at: 0x3c)
        }
        if sectionCount > 0 {
            let tableSize = UInt64(sectionCount) * UInt64(sectionEntrySize)
            guard tableSize <= UInt64(file.count) - sectionOffset else {
                throw reader.error(.outOfBounds, "\(sectionCount) section headers at 0x\(String(sectionOffset, radix: 16)) run past the \(file.count)-byte file", at: 0x28)
            }
        }
        var headers: [SectionHeader] = []
        headers.reserveCapacity(sectionCount)
        for index in 0..<sectionCount {
            var entry = ByteReader(file, at: Int(sectionOffset) + index * sectionEntrySize, region: .file)
            headers.append(try header(&entry))
        }

        // Section names.
        var names: UnsafeRawBufferPointer?
        if namesIndex > 0, namesIndex < headers.count {
            let table = headers[namesIndex]
            guard table.type != 8, table.offset <= UInt64(file.count), table.size <= UInt64(file.count) - table.offset else {
                throw reader.error(.outOfBounds, "section name table (section \(namesIndex)) is outside the file", at: table.headerOffset)
            }
            names = UnsafeRawBufferPointer(rebasing: file[Int(table.offset)..<Int(table.offset + table.size)])
        }

        var sections: [SectionRecord] = []
        var buildID: DebugIdentifier?
        var debugLink: String?
        var symbolTable: (Int, Int)?
        var dynamicSymbolTable: (Int, Int)?
        var symbolCount = 0
        var hasExecutableBits = false
        var hasExecutableNoBits = false
        for (index, header) in headers.enumerated() where index > 0 {
            var name = ""
            if let names, let bytes = ByteReader.cString(in: names, at: Int(header.nameOffset)) {
                name = String(decoding: bytes, as: UTF8.self)
            }
            let noBits = header.type == 8 // SHT_NOBITS
            let isCode = header.flags & 0x4 != 0 // SHF_EXECINSTR
            if isCode { if noBits { hasExecutableNoBits = true } else if header.size > 0 { hasExecutableBits = true } }
            var stored: UInt64?
            if !noBits, header.type != 0, header.size > 0 {
                guard header.offset <= UInt64(file.count), header.size <= UInt64(file.count) - header.offset else {
                    throw reader.error(.outOfBounds, "section \(index) \(name) at 0x\(String(header.offset, radix: 16)) size \(header.size) is outside the \(file.count)-byte file", at: header.headerOffset)
                }
                stored = header.offset
            }
            var compression = SectionRecord.Compression.none
            var size = header.size
            if let stored, header.flags & 0x800 != 0 { // SHF_COMPRESSED
                var chdr = ByteReader(UnsafeRawBufferPointer(rebasing: file[Int(stored)..<Int(stored + header.size)]),
                                      region: ByteRegion(section: name, fileOffset: stored))
                let kind = try chdr.u32("Elf64_Chdr ch_type")
                _ = try chdr.u32("Elf64_Chdr ch_reserved")
                let uncompressed = try chdr.u64("Elf64_Chdr ch_size")
                _ = try chdr.u64("Elf64_Chdr ch_addralign")
                switch kind {
                case 1: compression = .elfZlib(headerSize: 24, uncompressedSize: uncompressed)
                case 2: compression = .elfZstd(headerSize: 24, uncompressedSize: uncompressed)
                default: compression = .elfUnknown(type: kind, uncompressedSize: uncompressed)
                }
                size = uncompressed
            } else if let stored, name.hasPrefix(".zdebug_"), header.size >= 12 {
                var zheader = ByteReader(UnsafeRawBufferPointer(rebasing: file[Int(stored)..<Int(stored + header.size)]),
                                         region: ByteRegion(section: name, fileOffset: stored))
                let tag = try zheader.bytes(4, "ZLIB tag")
                if Array(tag) == Array("ZLIB".utf8) {
                    let uncompressed = try zheader.u64BigEndian("zdebug size")
                    compression = .gnuZlib(uncompressedSize: uncompressed)
                    size = uncompressed
                }
            }
            sections.append(SectionRecord(segment: "", name: name, address: header.address, size: size,
                                          fileOffset: stored, fileSize: stored == nil ? 0 : header.size,
                                          compression: compression, isCode: isCode, index: index))
            switch header.type {
            case 2: // SHT_SYMTAB
                if symbolTable == nil, stored != nil {
                    symbolTable = (index, Int(header.link))
                }
            case 11: // SHT_DYNSYM
                if dynamicSymbolTable == nil, stored != nil { dynamicSymbolTable = (index, Int(header.link)) }
            case 7: // SHT_NOTE
                if buildID == nil, let stored {
                    buildID = try findBuildID(in: UnsafeRawBufferPointer(rebasing: file[Int(stored)..<Int(stored + header.size)]),
                                              region: ByteRegion(section: name, fileOffset: stored))
                }
            default:
                break
            }
            if name == ".gnu_debuglink", let stored {
                let bytes = UnsafeRawBufferPointer(rebasing: file[Int(stored)..<Int(stored + header.size)])
                if let text = ByteReader.cString(in: bytes, at: 0) { debugLink = String(decoding: text, as: UTF8.self) }
            }
        }
        var chosen = symbolTable ?? dynamicSymbolTable
        if let (symbols, strings) = chosen {
            guard strings > 0, strings < headers.count else {
                throw reader.error(.malformed, "symbol table (section \(symbols)) links to string table \(strings), which does not exist", at: headers[symbols].headerOffset)
            }
            symbolCount = Int(headers[symbols].size / 24)
            if symbolCount == 0 { chosen = nil }
        }

        // Program headers: the image base (lowest PT_LOAD), its span, build id notes, PIE-ness.
        var lowest = UInt64.max
        var highest: UInt64 = 0
        var hasInterpreter = false
        if programOffset != 0, programCount > 0 {
            guard programEntrySize >= 56 else {
                throw reader.error(.malformed, "e_phentsize \(programEntrySize) is smaller than an Elf64_Phdr", at: 0x36)
            }
            guard programCount <= maximumProgramHeaders,
                  programOffset <= UInt64(file.count),
                  UInt64(programCount) * UInt64(programEntrySize) <= UInt64(file.count) - programOffset else {
                throw reader.error(.outOfBounds, "\(programCount) program headers at 0x\(String(programOffset, radix: 16)) run past the \(file.count)-byte file", at: 0x20)
            }
            for index in 0..<programCount {
                var entry = ByteReader(file, at: Int(programOffset) + index * programEntrySize, region: .file)
                let segmentType = try entry.u32("p_type")
                _ = try entry.u32("p_flags")
                let offset = try entry.u64("p_offset")
                let address = try entry.u64("p_vaddr")
                _ = try entry.u64("p_paddr")
                let fileSize = try entry.u64("p_filesz")
                let memorySize = try entry.u64("p_memsz")
                switch segmentType {
                case 1: // PT_LOAD
                    lowest = min(lowest, address)
                    // A segment that runs past the end of the address space ends there.
                    let (end, overflow) = address.addingReportingOverflow(memorySize)
                    highest = max(highest, overflow ? .max : end)
                case 3: hasInterpreter = true // PT_INTERP
                case 4: // PT_NOTE
                    if buildID == nil, offset <= UInt64(file.count), fileSize <= UInt64(file.count) - offset, fileSize > 0 {
                        buildID = try? findBuildID(in: UnsafeRawBufferPointer(rebasing: file[Int(offset)..<Int(offset + fileSize)]),
                                                   region: ByteRegion(section: nil, fileOffset: offset))
                    }
                default: break
                }
            }
        }

        let kind: ObjectKind
        switch type {
        case 1: kind = .object
        case 2: kind = .executable
        case 3: kind = hasInterpreter ? .executable : .library
        case 4: kind = .core
        default: kind = .other
        }
        // A separate debug file keeps `.symtab` and empties the code; a stripped library keeps
        // only `.dynsym` and its code, and is never taken for one.
        let dynamicOnly = symbolTable == nil && chosen != nil
        let isDebugCompanion = hasExecutableNoBits && !hasExecutableBits && !dynamicOnly && (kind == .executable || kind == .library)
        var parsed = ParsedSlice(format: .elf, arch: Architecture.elfName(machine: machine), id: buildID,
                           kind: isDebugCompanion ? .debugCompanion : kind,
                           imageVMAddress: lowest == .max ? 0 : lowest, imageSize: lowest == .max ? 0 : highest - lowest,
                           sections: sections, symbolTable: chosen.map { .elf(symbols: $0.0, strings: $0.1) },
                           symbolCount: chosen == nil ? 0 : symbolCount, debugLink: debugLink, platform: nil,
                           is64Bit: true, elfMachine: machine, isRelocatable: type == 1,
                           sliceOffset: 0, sliceSize: UInt64(file.count))
        parsed.symbolTableIsDynamic = dynamicOnly
        return parsed
    }

    private static func header(_ reader: inout ByteReader) throws(SymbolsError) -> SectionHeader {
        let start = reader.offset
        let name = try reader.u32("sh_name")
        let type = try reader.u32("sh_type")
        let flags = try reader.u64("sh_flags")
        let address = try reader.u64("sh_addr")
        let offset = try reader.u64("sh_offset")
        let size = try reader.u64("sh_size")
        let link = try reader.u32("sh_link")
        let info = try reader.u32("sh_info")
        _ = try reader.u64("sh_addralign")
        _ = try reader.u64("sh_entsize")
        return SectionHeader(nameOffset: name, type: type, flags: flags, address: address, offset: offset,
                             size: size, link: link, info: info, headerOffset: start)
    }

    /// The `NT_GNU_BUILD_ID` in a note section or segment, if any.
    static func findBuildID(in notes: UnsafeRawBufferPointer, region: ByteRegion) throws(SymbolsError) -> DebugIdentifier? {
        var reader = ByteReader(notes, region: region)
        while reader.remaining >= 12 {
            let nameSize = Int(try reader.u32("note namesz"))
            let descriptionSize = Int(try reader.u32("note descsz"))
            let noteType = try reader.u32("note type")
            let name = try reader.bytes(nameSize, "note name")
            try reader.skip((4 - nameSize % 4) % 4 > reader.remaining ? reader.remaining : (4 - nameSize % 4) % 4, "note padding")
            let description = try reader.bytes(descriptionSize, "note descriptor")
            let padding = (4 - descriptionSize % 4) % 4
            try reader.skip(min(padding, reader.remaining), "note padding")
            if noteType == 3, nameSize == 4, Array(name) == [0x47, 0x4e, 0x55, 0] { // "GNU\0"
                return DebugIdentifier(kind: .buildID, bytes: Array(description))
            }
        }
        return nil
    }
}
