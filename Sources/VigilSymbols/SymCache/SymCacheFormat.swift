/// The SymCache file layout, version 1. All integers are little-endian; tables are 8-byte
/// aligned; every offset is from the start of the file.
///
/// ```
/// header (160 bytes)
///   0  magic "VGSC"          4  endian marker 0xFEFF (u16)   6  version (u16)
///   8  header size (u32)     12 flags (u32)                  16 file size (u64)
///   24 image vmaddr (u64)    32 id kind, id length, address width, location-index width (u8 each)
///   36 widths of a location's function, file, line and parent fields (u8 each)
///   40 arch string offset, length (u32, u32)                 48 id bytes (64, zero-padded)
///   112 counts: ranges, locations, functions, files, string bytes (u32 each)
///   132 offsets: range starts, range locations, locations, functions, files, strings (u32 each)
///   156 reserved (u32)
/// range starts      address width × ranges: addresses relative to the image vmaddr, increasing
/// range locations   location-index width × ranges: 1 + the innermost location, 0 for none
/// locations         (function, file, line, parent) per location, each field its own width;
///                   function/file/parent are 1 + an index (0: none); a parent's index is always
///                   lower than its child's, so inline chains cannot cycle
/// functions         12 bytes: name offset, name length (u32, into strings), entry address
///                   relative to the image vmaddr (u32, 0xFFFFFFFF: unknown)
/// files             8 bytes: path offset, path length (u32, into strings)
/// strings           UTF-8 bytes, deduplicated, not terminated
/// ```
///
/// A range covers addresses from its start to the next range's start; the last range always
/// has no location and ends the covered span.
enum SymCacheFormat {
    static let magic: [UInt8] = Array("VGSC".utf8)
    static let endianMarker: UInt16 = 0xfeff
    static let version: UInt16 = 1
    static let headerSize = 160
    static let maximumIDLength = 64
    static let functionRecordSize = 12
    static let fileRecordSize = 8
    static let unknownEntry: UInt32 = 0xffff_ffff

    enum Field {
        static let magic = 0
        static let endian = 4
        static let version = 6
        static let headerSize = 8
        static let flags = 12
        static let fileSize = 16
        static let imageVMAddress = 24
        static let idKind = 32
        static let idLength = 33
        static let addressWidth = 34
        static let locationIndexWidth = 35
        static let functionWidth = 36
        static let fileWidth = 37
        static let lineWidth = 38
        static let parentWidth = 39
        static let archOffset = 40
        static let archLength = 44
        static let id = 48
        static let rangeCount = 112
        static let locationCount = 116
        static let functionCount = 120
        static let fileCount = 124
        static let stringsSize = 128
        static let rangeStartsOffset = 132
        static let rangeLocationsOffset = 136
        static let locationsOffset = 140
        static let functionsOffset = 144
        static let filesOffset = 148
        static let stringsOffset = 152
    }

    /// The fewest bytes (1…4) that hold `value`.
    static func width(for value: UInt64) -> Int {
        if value < 1 << 8 { return 1 }
        if value < 1 << 16 { return 2 }
        if value < 1 << 24 { return 3 }
        return 4
    }

    /// Reads a little-endian unsigned integer of `width` bytes (1…4, or 8).
    @inline(__always)
    static func load(_ base: UnsafeRawPointer, _ offset: Int, width: Int) -> UInt64 {
        switch width {
        case 1: return UInt64(base.load(fromByteOffset: offset, as: UInt8.self))
        case 2: return UInt64(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 3:
            return UInt64(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
                | UInt64(base.load(fromByteOffset: offset + 2, as: UInt8.self)) << 16
        case 4: return UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        default: return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
    }

    /// Appends `value` as `width` little-endian bytes.
    static func store(_ value: UInt64, width: Int, into bytes: inout [UInt8]) {
        var remaining = value
        for _ in 0..<width {
            bytes.append(UInt8(truncatingIfNeeded: remaining))
            remaining >>= 8
        }
    }
}
