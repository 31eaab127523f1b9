/// Reads the header of a fat (universal) Mach-O file: `FAT_MAGIC` with 32-bit offsets or
/// `FAT_MAGIC_64` with 64-bit offsets, big-endian, followed by one entry per slice.
enum FatParser {
    static let magic: UInt32 = 0xcafe_babe
    static let magic64: UInt32 = 0xcafe_babf
    /// Real universal files have a handful of slices; Java class files share the magic and
    /// would read as dozens (their version number), so a larger count is not a fat file.
    static let maximumSlices: UInt32 = 64

    /// One slice's entry.
    struct Entry {
        var cpuType: Int32
        var cpuSubtype: Int32
        var offset: UInt64
        var size: UInt64
    }

    /// Whether the first four bytes (read big-endian) are a fat magic number.
    static func isFat(bigEndianMagic: UInt32) -> Bool {
        bigEndianMagic == magic || bigEndianMagic == magic64
    }

    /// The slices' entries, each checked to lie inside the file.
    static func entries(_ file: UnsafeRawBufferPointer) throws(SymbolsError) -> [Entry] {
        var reader = ByteReader(file, region: .file)
        let fatMagic = try reader.u32BigEndian("fat magic")
        guard isFat(bigEndianMagic: fatMagic) else {
            throw reader.error(.badMagic, "not a fat Mach-O file", at: 0)
        }
        let wide = fatMagic == magic64
        let count = try reader.u32BigEndian("nfat_arch")
        guard count > 0 else { throw reader.error(.malformed, "fat file with no slices", at: 4) }
        guard count <= maximumSlices else {
            throw reader.error(.limitExceeded, "fat header declares \(count) slices (at most \(maximumSlices))", at: 4)
        }
        var entries: [Entry] = []
        for index in 0..<count {
            let start = reader.offset
            let cpuType = Int32(bitPattern: try reader.u32BigEndian("fat_arch cputype"))
            let cpuSubtype = Int32(bitPattern: try reader.u32BigEndian("fat_arch cpusubtype"))
            let offset = wide ? try reader.u64BigEndian("fat_arch offset") : UInt64(try reader.u32BigEndian("fat_arch offset"))
            let size = wide ? try reader.u64BigEndian("fat_arch size") : UInt64(try reader.u32BigEndian("fat_arch size"))
            _ = try reader.u32BigEndian("fat_arch align")
            if wide { _ = try reader.u32BigEndian("fat_arch reserved") }
            guard offset <= UInt64(file.count), size <= UInt64(file.count) - offset else {
                throw reader.error(.outOfBounds, "fat slice \(index) (\(Architecture.machOName(cpuType: cpuType, cpuSubtype: cpuSubtype))) at offset \(offset) size \(size) is outside the \(file.count)-byte file", at: start)
            }
            entries.append(Entry(cpuType: cpuType, cpuSubtype: cpuSubtype, offset: offset, size: size))
        }
        return entries
    }
}
