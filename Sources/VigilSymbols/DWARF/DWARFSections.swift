/// The DWARF sections of one slice, each as borrowed bytes plus the region errors name.
///
/// Compressed ELF sections are inflated on load; ``owners`` keeps those buffers (and the file
/// mapping) alive for as long as the value is used. Absent sections are empty.
struct DWARFSections {
    /// One section's bytes and where they are.
    struct Section {
        var bytes: UnsafeRawBufferPointer
        var region: ByteRegion

        static func empty(_ name: String) -> Section {
            Section(bytes: UnsafeRawBufferPointer(start: nil, count: 0), region: ByteRegion(section: name, fileOffset: nil))
        }

        /// A reader positioned at `offset`.
        func reader(at offset: Int = 0) -> ByteReader { ByteReader(bytes, at: offset, region: region) }
    }

    var info = Section.empty("debug_info")
    var abbrev = Section.empty("debug_abbrev")
    var str = Section.empty("debug_str")
    var line = Section.empty("debug_line")
    var lineStr = Section.empty("debug_line_str")
    var ranges = Section.empty("debug_ranges")
    var rnglists = Section.empty("debug_rnglists")
    var addr = Section.empty("debug_addr")
    var strOffsets = Section.empty("debug_str_offsets")
    var aranges = Section.empty("debug_aranges")
    /// Storage that must outlive the borrowed bytes.
    var owners: [ByteStorage] = []

    /// Loads the DWARF sections of `slice` (Mach-O `__DWARF,__debug_*`, ELF `.debug_*` or
    /// `.zdebug_*`). The first section of each name wins.
    init(slice: ObjectSlice) throws(SymbolsError) {
        owners.append(slice.storage)
        var seen: Set<String> = []
        for record in slice.parsed.sections {
            guard let name = record.dwarfName, record.fileOffset != nil, !seen.contains(name) else { continue }
            let keyPath: WritableKeyPath<DWARFSections, Section>
            switch name {
            case "debug_info": keyPath = \.info
            case "debug_abbrev": keyPath = \.abbrev
            case "debug_str": keyPath = \.str
            case "debug_line": keyPath = \.line
            case "debug_line_str": keyPath = \.lineStr
            case "debug_ranges": keyPath = \.ranges
            case "debug_rnglists": keyPath = \.rnglists
            case "debug_addr": keyPath = \.addr
            case "debug_str_offsets": keyPath = \.strOffsets
            case "debug_aranges": keyPath = \.aranges
            default: continue
            }
            seen.insert(name)
            let (bytes, region, owner) = try slice.contents(of: record)
            if let owner { owners.append(owner) }
            self[keyPath: keyPath] = Section(bytes: bytes, region: region)
        }
    }

    /// Empty sections, for tests that fill in only some.
    init() {}
}
