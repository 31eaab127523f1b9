/// One architecture's image inside an ``ObjectFile``: a thin Mach-O, one slice of a fat file,
/// or an ELF file. Describes the image and gives what a ``SymCacheWriter`` needs.
///
/// A value type that keeps the file's bytes alive; cheap to copy; `Sendable`.
public struct ObjectSlice: Sendable, CustomStringConvertible {
    let parsed: ParsedSlice
    let storage: ByteStorage
    /// The file the slice was read from, when opened from a path.
    public let path: String?

    init(parsed: ParsedSlice, storage: ByteStorage, path: String?) {
        self.parsed = parsed
        self.storage = storage
        self.path = path
    }

    /// Mach-O or ELF.
    public var format: ObjectFormat { parsed.format }
    /// The architecture as Apple's tools name it: `arm64`, `arm64e`, `x86_64`, `armv7`…
    /// (ELF `aarch64` is reported as `arm64`).
    public var arch: String { parsed.arch }
    /// The `LC_UUID` or GNU build id; `nil` when the file has none.
    public var id: DebugIdentifier? { parsed.id }
    /// What the image is (executable, library, dSYM companion…).
    public var kind: ObjectKind { parsed.kind }
    /// Whether the slice holds DWARF debug information (a non-empty `debug_info` section).
    public var hasDWARF: Bool {
        parsed.sections.contains { $0.dwarfName == "debug_info" && $0.size > 0 && $0.fileOffset != nil }
    }
    /// Whether the slice has a symbol table with at least one entry.
    public var hasSymbolTable: Bool { parsed.symbolTable != nil && parsed.symbolCount > 0 }
    /// Whether the only symbol table is ELF's `.dynsym`: a stripped file that names its exported
    /// functions only (no local symbols, no DWARF).
    public var hasOnlyDynamicSymbols: Bool { hasSymbolTable && parsed.symbolTableIsDynamic }
    /// How many entries the symbol table has (including debug and undefined entries).
    public var symbolCount: Int { parsed.symbolCount }
    /// The address the image's addresses are relative to: the `__TEXT` segment's vmaddr for
    /// Mach-O (`0x100000000` for an arm64 executable), the lowest `PT_LOAD` address for ELF.
    /// A runtime address maps to the file as `address - loadAddress + imageVMAddress`.
    public var imageVMAddress: UInt64 { parsed.imageVMAddress }
    /// The span of the image's segments in memory, in bytes.
    public var imageSize: UInt64 { parsed.imageSize }
    /// The ELF `.gnu_debuglink` file name (a separate debug file to look for), if present.
    public var debugLink: String? { parsed.debugLink }
    /// The Mach-O platform and minimum OS version (`iOS 15.0`), when the load commands say.
    public var platform: String? { parsed.platform }
    /// Where the slice starts in its file (non-zero inside a fat file), in bytes.
    public var fileOffset: UInt64 { parsed.sliceOffset }
    /// The slice's size in bytes.
    public var fileSize: UInt64 { parsed.sliceSize }
    /// The file's base name (the image name `atos` prints), or `nil` when opened from bytes.
    public var imageName: String? {
        guard let path else { return nil }
        return path.split(separator: "/").last.map(String.init)
    }

    /// Names of the slice's sections (`__TEXT,__text`, `.debug_info`), for diagnostics.
    public var sectionNames: [String] {
        parsed.sections.map { $0.segment.isEmpty ? $0.name : "\($0.segment),\($0.name)" }
    }

    /// `arm64 82D13D98-… executable (DWARF)`.
    public var description: String {
        var text = "\(arch) \(id?.description ?? "<no id>") \(format.rawValue) \(kind.rawValue)"
        text += hasDWARF ? " with DWARF" : " without DWARF"
        if hasSymbolTable { text += ", \(symbolCount) symbols" }
        return text
    }

    /// The contents of `section`, inflated when compressed, with the region errors should name
    /// and the storage that keeps inflated bytes alive (`nil` when they are the file's own).
    func contents(of section: SectionRecord) throws(SymbolsError) -> (bytes: UnsafeRawBufferPointer, region: ByteRegion, owner: ByteStorage?) {
        guard let offset = section.fileOffset else {
            return (UnsafeRawBufferPointer(start: nil, count: 0), ByteRegion(section: section.name, fileOffset: nil), nil)
        }
        let file = storage.bytes
        guard offset <= UInt64(file.count), section.fileSize <= UInt64(file.count) - offset else {
            throw SymbolsError(.outOfBounds, "section \(section.name) is outside the file", fileOffset: offset, path: path)
        }
        let stored = UnsafeRawBufferPointer(rebasing: file[Int(offset)..<Int(offset + section.fileSize)])
        switch section.compression {
        case .none:
            return (stored, ByteRegion(section: section.name, fileOffset: offset), nil)
        case .elfZlib(let headerSize, let size):
            let region = ByteRegion(section: section.name, fileOffset: offset)
            guard stored.count >= headerSize else { throw region.error(.truncated, "compressed section header", at: 0) }
            let inflated = try Inflater.inflate(UnsafeRawBufferPointer(rebasing: stored[headerSize...]), size: size,
                                                region: ByteRegion(section: section.name, fileOffset: offset + UInt64(headerSize)))
            return (inflated.bytes, ByteRegion(section: section.name, fileOffset: nil), inflated)
        case .elfZstd(let headerSize, let size):
            let region = ByteRegion(section: section.name, fileOffset: offset)
            guard stored.count >= headerSize else { throw region.error(.truncated, "compressed section header", at: 0) }
            let decompressed = try ZstdDecoder.decompress(UnsafeRawBufferPointer(rebasing: stored[headerSize...]), size: size,
                                                          region: ByteRegion(section: section.name, fileOffset: offset + UInt64(headerSize)))
            return (decompressed.bytes, ByteRegion(section: section.name, fileOffset: nil), decompressed)
        case .elfUnknown(let type, _):
            throw ByteRegion(section: section.name, fileOffset: offset)
                .error(.unsupported, "section \(section.name) is compressed with ch_type \(type); only zlib (1) and zstd (2) are supported", at: 0)
        case .gnuZlib(let size):
            let inflated = try Inflater.inflate(UnsafeRawBufferPointer(rebasing: stored[12...]), size: size,
                                                region: ByteRegion(section: section.name, fileOffset: offset + 12))
            return (inflated.bytes, ByteRegion(section: section.name, fileOffset: nil), inflated)
        }
    }
}
