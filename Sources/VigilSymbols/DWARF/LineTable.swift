/// A decoded `.debug_line` program (versions 2–5): its file table and its rows, grouped into
/// sequences sorted as llvm sorts them (by end address, stable), for address lookups.
///
/// Rows keep what symbolication needs: address, file index and line. Cost: one pass over the
/// program; memory 16 bytes per row. Lookups follow llvm's `lookupAddress` exactly, so ties
/// and overlapping sequences resolve the same way as in `llvm-symbolizer`.
struct LineTable {
    struct Row {
        var address: UInt64
        var file: UInt32
        var line: UInt32
    }

    struct Sequence {
        var lowPC: UInt64
        var highPC: UInt64
        /// Rows `firstRow ..< endRow`; the last is the end_sequence row.
        var firstRow: Int
        var endRow: Int
    }

    /// One file entry: its name and directory index as the header declares them.
    struct FileEntry {
        var name: ByteString
        var directory: UInt64
    }

    var version: UInt16 = 0
    var directories: [ByteString] = []
    var files: [FileEntry] = []
    var rows: [Row] = []
    var sequences: [Sequence] = []

    /// The row describing `address`, or `nil` (llvm's `lookupAddress`).
    func row(for address: UInt64) -> Int? {
        // First sequence whose highPC > address.
        var low = 0, high = sequences.count
        while low < high {
            let middle = (low + high) / 2
            if sequences[middle].highPC <= address { low = middle + 1 } else { high = middle }
        }
        guard low < sequences.count else { return nil }
        let sequence = sequences[low]
        guard sequence.lowPC <= address, address < sequence.highPC else { return nil }
        // upper_bound over rows [first + 1, end - 1), minus one.
        var first = sequence.firstRow + 1
        var count = sequence.endRow - 1 - first
        while count > 0 {
            let half = count / 2
            if rows[first + half].address <= address {
                first += half + 1
                count -= half + 1
            } else {
                count = half
            }
        }
        return first - 1
    }

    /// Addresses at which ``row(for:)`` can change: every row address (end rows included).
    func boundaries(into output: inout [UInt64]) {
        for row in rows { output.append(row.address) }
    }

    /// Whether `index` names a file (1-based before DWARF 5, 0-based from DWARF 5).
    func hasFile(_ index: UInt64) -> Bool {
        version >= 5 ? index < UInt64(files.count) : index >= 1 && index <= UInt64(files.count)
    }

    /// The path of file `index` as llvm's `getFileNameByIndex` with absolute paths builds it:
    /// `compDir/includeDir/name`, each part skipped when a later one is absolute.
    func path(ofFile index: UInt64, compilationDirectory: ByteString) -> [UInt8]? {
        guard hasFile(index) else { return nil }
        let entry = files[Int(version >= 5 ? index : index - 1)]
        guard entry.name.exists else { return nil }
        if entry.name.isAbsolutePath { return Array(entry.name.buffer) }
        var includeDirectory = ByteString(start: nil, count: 0)
        if version >= 5 {
            if entry.directory < UInt64(directories.count) { includeDirectory = directories[Int(entry.directory)] }
        } else if entry.directory > 0, entry.directory <= UInt64(directories.count) {
            includeDirectory = directories[Int(entry.directory - 1)]
        }
        if !includeDirectory.exists { includeDirectory = ByteString(start: nil, count: 0) }
        var path: [UInt8] = []
        if (version < 5 || entry.directory != 0), compilationDirectory.count > 0, !includeDirectory.isAbsolutePath {
            LineTable.append(compilationDirectory.buffer, to: &path)
        }
        LineTable.append(includeDirectory.buffer, to: &path)
        LineTable.append(entry.name.buffer, to: &path)
        return path
    }

    /// llvm's `sys::path::append` for one component (POSIX style): a separator goes between
    /// parts unless one is already there; a component after a separator loses its leading ones.
    static func append(_ component: UnsafeRawBufferPointer, to path: inout [UInt8]) {
        let slash = UInt8(ascii: "/")
        if let last = path.last, last == slash {
            var start = 0
            while start < component.count, component[start] == slash { start += 1 }
            path.append(contentsOf: component[start...])
            return
        }
        let startsWithSeparator = !component.isEmpty && component[0] == slash
        if !startsWithSeparator, !path.isEmpty { path.append(slash) }
        path.append(contentsOf: component)
    }
}

extension LineTable {
    /// Longest accepted header; real ones are a few kilobytes.
    static let maximumFiles = 1 << 20

    /// Parses the program at `offset`. The unit supplies the string bases for DWARF 5 forms.
    /// A problem in the opcodes keeps the sequences completed before it and is reported in
    /// `diagnostics`; a problem in the header throws.
    init(info: DWARFDebugInfo, offset: UInt64, unit: DWARFUnit, attributes: UnitAttributes,
         diagnostics: inout [SymbolsError]) throws(SymbolsError) {
        let section = info.sections.line
        guard offset < UInt64(section.bytes.count) else {
            throw section.region.error(.outOfBounds, "line table offset 0x\(String(offset, radix: 16)) is outside the \(section.bytes.count)-byte section", at: section.bytes.count)
        }
        var reader = section.reader(at: Int(offset))
        var length = UInt64(try reader.u32("line table unit_length"))
        var offsetSize = 4
        if length == 0xffff_ffff {
            length = try reader.u64("line table unit_length (64-bit)")
            offsetSize = 8
        }
        guard length <= UInt64(reader.remaining) else {
            throw reader.error(.truncated, "line table of \(length) bytes, \(reader.remaining) remain", at: Int(offset))
        }
        let end = reader.offset + Int(length)
        // Confine reads to this table.
        reader = ByteReader(UnsafeRawBufferPointer(rebasing: section.bytes[0..<end]), at: reader.offset, region: section.region)
        version = try reader.u16("line table version")
        guard (2...5).contains(version) else {
            throw reader.error(.unsupported, "line table version \(version)", at: Int(offset))
        }
        var addressSize = unit.addressSize
        if version >= 5 {
            addressSize = Int(try reader.u8("line table address_size"))
            _ = try reader.u8("segment_selector_size")
        }
        let headerLength = try reader.unsigned(size: offsetSize, "header_length")
        guard headerLength <= UInt64(reader.remaining) else {
            throw reader.error(.truncated, "line table header_length \(headerLength) runs past the table")
        }
        let programStart = reader.offset + Int(headerLength)
        let minimumInstructionLength = UInt64(try reader.u8("minimum_instruction_length"))
        var maximumOperations: UInt64 = 1
        if version >= 4 { maximumOperations = UInt64(try reader.u8("maximum_operations_per_instruction")) }
        if maximumOperations == 0 { maximumOperations = 1 }
        let defaultIsStatement = try reader.u8("default_is_stmt")
        _ = defaultIsStatement
        let lineBase = Int64(Int8(bitPattern: try reader.u8("line_base")))
        let lineRange = UInt64(try reader.u8("line_range"))
        let opcodeBase = try reader.u8("opcode_base")
        var standardLengths: [UInt8] = []
        if opcodeBase > 1 {
            for _ in 1..<opcodeBase { standardLengths.append(try reader.u8("standard_opcode_lengths")) }
        }

        if version >= 5 {
            directories = try LineTable.readEntryTable(&reader, info: info, unit: unit, attributes: attributes,
                                                       offsetSize: offsetSize, what: "directory").map(\.name)
            files = try LineTable.readEntryTable(&reader, info: info, unit: unit, attributes: attributes,
                                                 offsetSize: offsetSize, what: "file name")
        } else {
            while true {
                let directory = try reader.cString("include_directories entry")
                if directory.isEmpty { break }
                directories.append(ByteString(directory))
                guard directories.count <= LineTable.maximumFiles else {
                    throw reader.error(.limitExceeded, "more than \(LineTable.maximumFiles) include directories")
                }
            }
            while true {
                let name = try reader.cString("file_names entry")
                if name.isEmpty { break }
                let directory = try reader.uleb("file directory index")
                _ = try reader.uleb("file modification time")
                _ = try reader.uleb("file length")
                files.append(FileEntry(name: ByteString(name), directory: directory))
                guard files.count <= LineTable.maximumFiles else {
                    throw reader.error(.limitExceeded, "more than \(LineTable.maximumFiles) file names")
                }
            }
        }
        guard programStart <= end else {
            throw reader.error(.truncated, "line program starts past the end of its table")
        }
        reader.offset = programStart

        do throws(SymbolsError) {
            try runProgram(&reader, end: end, addressSize: addressSize, minimumInstructionLength: minimumInstructionLength,
                           maximumOperations: maximumOperations, lineBase: lineBase, lineRange: lineRange,
                           opcodeBase: opcodeBase, standardLengths: standardLengths)
        } catch {
            diagnostics.append(error)
        }
        // Stable sort by end address, as lookups binary-search on it.
        let indexed = sequences.enumerated().sorted {
            $0.element.highPC != $1.element.highPC ? $0.element.highPC < $1.element.highPC : $0.offset < $1.offset
        }
        sequences = indexed.map(\.element)
    }

    private mutating func runProgram(_ reader: inout ByteReader, end: Int, addressSize: Int, minimumInstructionLength: UInt64,
                                     maximumOperations: UInt64, lineBase: Int64, lineRange: UInt64, opcodeBase: UInt8,
                                     standardLengths: [UInt8]) throws(SymbolsError) {
        var address: UInt64 = 0
        var operationIndex: UInt64 = 0
        var file: UInt32 = 1
        var line: UInt32 = 1
        var sequenceStart = -1 // first row of the open sequence
        var sequenceLow: UInt64 = 0

        func advance(_ operationAdvance: UInt64) {
            if maximumOperations == 1 {
                address &+= minimumInstructionLength &* operationAdvance
            } else {
                let total = operationIndex &+ operationAdvance
                address &+= minimumInstructionLength &* (total / maximumOperations)
                operationIndex = total % maximumOperations
            }
        }

        func emit(endSequence: Bool) {
            if sequenceStart < 0 {
                sequenceStart = rows.count
                sequenceLow = address
            }
            rows.append(Row(address: address, file: file, line: line))
            if endSequence {
                if sequenceLow < address, sequenceStart < rows.count {
                    sequences.append(Sequence(lowPC: sequenceLow, highPC: address, firstRow: sequenceStart, endRow: rows.count))
                }
                sequenceStart = -1
                address = 0
                operationIndex = 0
                file = 1
                line = 1
            }
        }

        while reader.offset < end {
            let opcodeOffset = reader.offset
            let opcode = try reader.u8("line opcode")
            if opcode >= opcodeBase {
                guard lineRange != 0 else {
                    throw reader.error(.malformed, "special opcode with line_range 0", at: opcodeOffset)
                }
                let adjusted = UInt64(opcode - opcodeBase)
                advance(adjusted / lineRange)
                line = line &+ UInt32(truncatingIfNeeded: lineBase &+ Int64(adjusted % lineRange))
                emit(endSequence: false)
                continue
            }
            switch opcode {
            case 0: // extended
                let length = try reader.uleb("extended opcode length")
                guard length <= UInt64(reader.remaining) else {
                    throw reader.error(.truncated, "extended opcode of \(length) bytes runs past the table", at: opcodeOffset)
                }
                let next = reader.offset + Int(length)
                if length == 0 { continue }
                let subOpcode = try reader.u8("extended opcode")
                switch subOpcode {
                case 1: // DW_LNE_end_sequence
                    emit(endSequence: true)
                case 2: // DW_LNE_set_address
                    let size = Int(length) - 1
                    if size == 8 || size == 4 || size == 2 || size == 1 {
                        address = try reader.unsigned(size: size, "DW_LNE_set_address operand")
                    } else if size == addressSize {
                        address = try reader.unsigned(size: addressSize, "DW_LNE_set_address operand")
                    }
                    operationIndex = 0
                case 3: // DW_LNE_define_file
                    let name = try reader.cString("DW_LNE_define_file name")
                    let directory = try reader.uleb("DW_LNE_define_file directory")
                    files.append(FileEntry(name: ByteString(name), directory: directory))
                    guard files.count <= LineTable.maximumFiles else {
                        throw reader.error(.limitExceeded, "more than \(LineTable.maximumFiles) file names", at: opcodeOffset)
                    }
                default: // DW_LNE_set_discriminator and unknown: skipped by length
                    break
                }
                reader.offset = next
            case 1: // DW_LNS_copy
                emit(endSequence: false)
            case 2: // DW_LNS_advance_pc
                advance(try reader.uleb("DW_LNS_advance_pc operand"))
            case 3: // DW_LNS_advance_line
                line = line &+ UInt32(truncatingIfNeeded: try reader.sleb("DW_LNS_advance_line operand"))
            case 4: // DW_LNS_set_file
                file = UInt32(truncatingIfNeeded: try reader.uleb("DW_LNS_set_file operand"))
            case 5: // DW_LNS_set_column
                _ = try reader.uleb("DW_LNS_set_column operand")
            case 6, 7, 10, 11: // negate_stmt, set_basic_block, prologue_end, epilogue_begin
                break
            case 8: // DW_LNS_const_add_pc
                guard lineRange != 0 else {
                    throw reader.error(.malformed, "DW_LNS_const_add_pc with line_range 0", at: opcodeOffset)
                }
                advance(UInt64(255 - opcodeBase) / lineRange)
            case 9: // DW_LNS_fixed_advance_pc
                address &+= UInt64(try reader.u16("DW_LNS_fixed_advance_pc operand"))
                operationIndex = 0
            case 12: // DW_LNS_set_isa
                _ = try reader.uleb("DW_LNS_set_isa operand")
            default: // unknown standard opcode: skip its declared LEB128 operands
                let count = Int(opcode) - 1 < standardLengths.count ? standardLengths[Int(opcode) - 1] : 0
                for _ in 0..<count { _ = try reader.uleb("unknown opcode operand") }
            }
        }
    }

    /// A DWARF 5 directory or file-name table: entry formats, then entries.
    private static func readEntryTable(_ reader: inout ByteReader, info: DWARFDebugInfo, unit: DWARFUnit,
                                       attributes: UnitAttributes, offsetSize: Int, what: StaticString) throws(SymbolsError) -> [FileEntry] {
        let formatCount = Int(try reader.u8("entry format count"))
        var formats: [(UInt64, UInt64)] = []
        for _ in 0..<formatCount {
            formats.append((try reader.uleb("entry content type"), try reader.uleb("entry form")))
        }
        let count = try reader.uleb("entry count")
        guard count <= UInt64(LineTable.maximumFiles) else {
            throw reader.error(.limitExceeded, "\(count) \(what) entries (at most \(LineTable.maximumFiles))")
        }
        var entries: [FileEntry] = []
        entries.reserveCapacity(Int(count))
        let lineUnit = DWARFUnit(offset: unit.offset, end: unit.end, firstDIE: unit.firstDIE, version: 5, unitType: unit.unitType,
                                 addressSize: unit.addressSize, offsetSize: offsetSize, abbreviationOffset: 0)
        for _ in 0..<count {
            var entry = FileEntry(name: .absent, directory: 0)
            for (content, form) in formats {
                let value = try FormValue.read(form: form, implicitConstant: 0, reader: &reader, addressSize: unit.addressSize,
                                               offsetSize: offsetSize, version: 5)
                switch content {
                case DW.lnctPath:
                    if value.form == DW.formString {
                        // Inline strings live in the line table itself.
                        entry.name = ByteReader.cString(in: reader.buffer, at: Int(value.value)).map(ByteString.init) ?? .absent
                    } else {
                        entry.name = info.string(value, unit: lineUnit, attributes: attributes)
                    }
                case DW.lnctDirectoryIndex: entry.directory = value.unsignedConstant ?? 0
                default: break
                }
            }
            entries.append(entry)
        }
        return entries
    }
}
