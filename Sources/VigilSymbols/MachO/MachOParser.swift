/// Reads one thin Mach-O image (32- or 64-bit, little-endian) from a slice of a file: header,
/// load commands, segments and sections, `LC_UUID`, `LC_SYMTAB`, `LC_BUILD_VERSION`.
///
/// Every count and offset is checked against the slice; a malformed load command is an error
/// naming the command and its file offset. Cost: one pass over the load commands.
enum MachOParser {
    static let magic64: UInt32 = 0xfeed_facf
    static let magic32: UInt32 = 0xfeed_face
    static let swappedMagic64: UInt32 = 0xcffa_edfe
    static let swappedMagic32: UInt32 = 0xcefa_edfe

    /// A Mach-O file may not have more load commands than this (real binaries have < 200).
    static let maximumLoadCommands: UInt32 = 100_000
    /// Nor more sections in one segment (the format allows 255 section numbers in nlist).
    static let maximumSectionsPerSegment: UInt32 = 10_000

    /// Whether `magic` (read little-endian at the start of a file) starts a thin Mach-O.
    static func isMachO(magic: UInt32) -> Bool {
        magic == magic64 || magic == magic32 || magic == swappedMagic64 || magic == swappedMagic32
    }

    /// Parses the Mach-O image at `sliceOffset ..< sliceOffset + sliceSize` of `file`.
    static func parse(_ file: UnsafeRawBufferPointer, sliceOffset: UInt64, sliceSize: UInt64) throws(SymbolsError) -> ParsedSlice {
        guard sliceOffset <= UInt64(file.count), sliceSize <= UInt64(file.count) - sliceOffset else {
            throw SymbolsError(.outOfBounds, "Mach-O slice \(sliceOffset)+\(sliceSize) is outside the \(file.count)-byte file",
                               fileOffset: sliceOffset)
        }
        let slice = UnsafeRawBufferPointer(rebasing: file[Int(sliceOffset)..<Int(sliceOffset + sliceSize)])
        let region = ByteRegion(section: nil, fileOffset: sliceOffset)
        var reader = ByteReader(slice, region: region)
        let magic = try reader.u32("Mach-O magic")
        let is64: Bool
        switch magic {
        case magic64: is64 = true
        case magic32: is64 = false
        case swappedMagic64, swappedMagic32:
            throw reader.error(.unsupported, "big-endian Mach-O is not supported", at: 0)
        default:
            throw reader.error(.badMagic, "not a Mach-O file (magic 0x\(String(magic, radix: 16)))", at: 0)
        }
        let cpuType = Int32(bitPattern: try reader.u32("cputype"))
        let cpuSubtype = Int32(bitPattern: try reader.u32("cpusubtype"))
        let fileType = try reader.u32("filetype")
        let commandCount = try reader.u32("ncmds")
        let commandsSize = try reader.u32("sizeofcmds")
        _ = try reader.u32("flags")
        if is64 { _ = try reader.u32("reserved") }
        guard commandCount <= maximumLoadCommands else {
            throw reader.error(.limitExceeded, "\(commandCount) load commands (at most \(maximumLoadCommands) accepted)", at: 16)
        }
        let commandsStart = reader.offset
        guard Int(commandsSize) <= reader.remaining else {
            throw reader.error(.truncated, "load commands need \(commandsSize) bytes, \(reader.remaining) remain")
        }
        let commandsEnd = commandsStart + Int(commandsSize)

        var sections: [SectionRecord] = []
        var uuid: DebugIdentifier?
        var symbolTable: ParsedSlice.SymbolTableLocation?
        var symbolCount = 0
        var platform: String?
        var textVMAddress: UInt64?
        var firstSegmentVMAddress: UInt64?
        var lowest = UInt64.max
        var highest: UInt64 = 0

        var position = commandsStart
        for commandIndex in 0..<commandCount {
            var header = ByteReader(slice, at: position, region: region)
            guard position + 8 <= commandsEnd else {
                throw header.error(.truncated, "load command \(commandIndex) of \(commandCount) runs past sizeofcmds")
            }
            let command = try header.u32("load command")
            let commandSize = Int(try header.u32("cmdsize"))
            guard commandSize >= 8, position + commandSize <= commandsEnd else {
                throw header.error(.malformed, "load command \(commandIndex) (cmd 0x\(String(command, radix: 16))) has cmdsize \(commandSize), outside sizeofcmds", at: position)
            }
            let body = UnsafeRawBufferPointer(rebasing: slice[position..<(position + commandSize)])
            var reader = ByteReader(body, at: 8, region: ByteRegion(section: nil, fileOffset: sliceOffset + UInt64(position)))
            switch command {
            case 0x19, 0x1: // LC_SEGMENT_64, LC_SEGMENT
                let wide = command == 0x19
                let segmentName = try fixedString(&reader, "segname")
                let vmAddress = wide ? try reader.u64("vmaddr") : UInt64(try reader.u32("vmaddr"))
                let vmSize = wide ? try reader.u64("vmsize") : UInt64(try reader.u32("vmsize"))
                let fileOffset = wide ? try reader.u64("fileoff") : UInt64(try reader.u32("fileoff"))
                let fileSize = wide ? try reader.u64("filesize") : UInt64(try reader.u32("filesize"))
                _ = try reader.u32("maxprot")
                _ = try reader.u32("initprot")
                let sectionCount = try reader.u32("nsects")
                _ = try reader.u32("flags")
                guard sectionCount <= maximumSectionsPerSegment else {
                    throw reader.error(.limitExceeded, "segment \(segmentName) declares \(sectionCount) sections", at: reader.offset - 8)
                }
                let sectionSize = wide ? 80 : 68
                guard Int(sectionCount) * sectionSize <= reader.remaining else {
                    throw reader.error(.truncated, "segment \(segmentName) declares \(sectionCount) sections but its command holds \(reader.remaining / sectionSize)")
                }
                if segmentName == "__TEXT" { textVMAddress = vmAddress }
                if firstSegmentVMAddress == nil, segmentName != "__PAGEZERO" { firstSegmentVMAddress = vmAddress }
                if segmentName != "__PAGEZERO", vmSize > 0 {
                    lowest = min(lowest, vmAddress)
                    highest = max(highest, vmAddress &+ vmSize)
                }
                _ = fileOffset
                _ = fileSize
                for _ in 0..<sectionCount {
                    let start = reader.offset
                    let name = try fixedString(&reader, "sectname")
                    let owner = try fixedString(&reader, "segname")
                    let address = wide ? try reader.u64("addr") : UInt64(try reader.u32("addr"))
                    let size = wide ? try reader.u64("size") : UInt64(try reader.u32("size"))
                    let offset = try reader.u32("offset")
                    _ = try reader.u32("align")
                    _ = try reader.u32("reloff")
                    _ = try reader.u32("nreloc")
                    let flags = try reader.u32("flags")
                    _ = try reader.u32("reserved1")
                    _ = try reader.u32("reserved2")
                    if wide { _ = try reader.u32("reserved3") }
                    let type = flags & 0xff
                    // S_ZEROFILL, S_GB_ZEROFILL, S_THREAD_LOCAL_ZEROFILL: no bytes in the file.
                    // dSYMs keep the code sections' headers with offset 0 and no bytes either.
                    let zeroFill = type == 0x1 || type == 0xc || type == 0x12
                    var stored: UInt64?
                    if !zeroFill, offset != 0, size > 0 {
                        guard UInt64(offset) <= sliceSize, size <= sliceSize - UInt64(offset) else {
                            throw reader.error(.outOfBounds, "section \(owner),\(name) at offset \(offset) size \(size) is outside the \(sliceSize)-byte image", at: start)
                        }
                        stored = sliceOffset + UInt64(offset)
                    }
                    let isCode = flags & 0x8000_0000 != 0 || flags & 0x400 != 0 // S_ATTR_PURE_INSTRUCTIONS, S_ATTR_SOME_INSTRUCTIONS
                    sections.append(SectionRecord(segment: owner.isEmpty ? segmentName : owner, name: name, address: address,
                                                  size: size, fileOffset: stored, fileSize: stored == nil ? 0 : size,
                                                  compression: .none, isCode: isCode, index: sections.count))
                }
            case 0x1b: // LC_UUID
                let bytes = try reader.bytes(16, "uuid")
                uuid = DebugIdentifier(kind: .uuid, bytes: Array(bytes))
            case 0x2: // LC_SYMTAB
                let symbolsOffset = try reader.u32("symoff")
                let count = try reader.u32("nsyms")
                let stringsOffset = try reader.u32("stroff")
                let stringsSize = try reader.u32("strsize")
                let entrySize: UInt64 = is64 ? 16 : 12
                guard UInt64(symbolsOffset) + UInt64(count) * entrySize <= sliceSize else {
                    throw reader.error(.outOfBounds, "LC_SYMTAB: \(count) symbols at offset \(symbolsOffset) run past the \(sliceSize)-byte image", at: 8)
                }
                guard UInt64(stringsOffset) + UInt64(stringsSize) <= sliceSize else {
                    throw reader.error(.outOfBounds, "LC_SYMTAB: string table at offset \(stringsOffset) size \(stringsSize) runs past the \(sliceSize)-byte image", at: 16)
                }
                symbolTable = .machO(symbolsOffset: sliceOffset + UInt64(symbolsOffset), count: count,
                                     stringsOffset: sliceOffset + UInt64(stringsOffset), stringsSize: stringsSize, is64Bit: is64)
                symbolCount = Int(count)
            case 0x32: // LC_BUILD_VERSION
                let platformNumber = try reader.u32("platform")
                let minimum = try reader.u32("minos")
                platform = platformName(platformNumber) + " " + versionString(minimum)
            case 0x24, 0x25, 0x2f, 0x30: // LC_VERSION_MIN_MACOSX, _IPHONEOS, _TVOS, _WATCHOS
                let minimum = try reader.u32("version")
                if platform == nil {
                    let names: [UInt32: String] = [0x24: "macOS", 0x25: "iOS", 0x2f: "tvOS", 0x30: "watchOS"]
                    platform = (names[command] ?? "?") + " " + versionString(minimum)
                }
            default:
                break
            }
            position += commandSize
        }

        let kind: ObjectKind
        switch fileType {
        case 1: kind = .object
        case 2: kind = .executable
        case 4: kind = .core
        case 6: kind = .library
        case 8: kind = .bundle
        case 10: kind = .debugCompanion
        default: kind = .other
        }
        let base = textVMAddress ?? firstSegmentVMAddress ?? 0
        return ParsedSlice(format: .machO, arch: Architecture.machOName(cpuType: cpuType, cpuSubtype: cpuSubtype),
                           id: uuid, kind: kind, imageVMAddress: base,
                           imageSize: highest > lowest ? highest - lowest : 0, sections: sections,
                           symbolTable: symbolTable, symbolCount: symbolCount, debugLink: nil, platform: platform,
                           is64Bit: is64, elfMachine: 0, isRelocatable: fileType == 1,
                           sliceOffset: sliceOffset, sliceSize: sliceSize)
    }

    /// A 16-byte, NUL-padded name (segment and section names).
    private static func fixedString(_ reader: inout ByteReader, _ what: StaticString) throws(SymbolsError) -> String {
        let bytes = try reader.bytes(16, what)
        let length = bytes.firstIndex(of: 0) ?? 16
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<length]), as: UTF8.self)
    }

    private static func platformName(_ number: UInt32) -> String {
        switch number {
        case 1: return "macOS"
        case 2: return "iOS"
        case 3: return "tvOS"
        case 4: return "watchOS"
        case 5: return "bridgeOS"
        case 6: return "Mac Catalyst"
        case 7: return "iOS Simulator"
        case 8: return "tvOS Simulator"
        case 9: return "watchOS Simulator"
        case 10: return "DriverKit"
        case 11: return "visionOS"
        case 12: return "visionOS Simulator"
        default: return "platform \(number)"
        }
    }

    /// `xxxx.yy.zz` nibbles as `major.minor[.patch]`.
    private static func versionString(_ packed: UInt32) -> String {
        let major = packed >> 16, minor = (packed >> 8) & 0xff, patch = packed & 0xff
        return patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
    }
}
