/// Where a buffer's bytes come from, so that errors can name the place: the section (when
/// the bytes are a section's contents) and the file offset of the buffer's first byte (absent
/// for decompressed contents, which exist in no file).
struct ByteRegion: Sendable {
    /// The section's name, or `nil` for raw file bytes.
    var section: String?
    /// The file offset of the buffer's first byte, when the bytes are the file's own.
    var fileOffset: UInt64?

    static let file = ByteRegion(section: nil, fileOffset: 0)

    /// An error at `offset` bytes into the region.
    func error(_ kind: SymbolsError.Kind, _ message: String, at offset: Int) -> SymbolsError {
        let position = UInt64(clamping: offset)
        return SymbolsError(kind, message,
                            fileOffset: fileOffset.map { $0 &+ position },
                            section: section.map { SymbolsError.SectionPosition(name: $0, offset: position) })
    }
}

/// A bounds-checked little-endian cursor over borrowed bytes.
///
/// Every read checks the remaining length and throws ``SymbolsError`` (`.truncated`) naming
/// the field and the place instead of trapping. The caller keeps the bytes alive (they belong
/// to a ``ByteStorage``). Copying a reader copies only the position.
struct ByteReader {
    /// The bytes being read.
    let buffer: UnsafeRawBufferPointer
    /// The next byte to read, from the start of ``buffer``.
    var offset: Int
    /// Where the bytes are, for errors.
    let region: ByteRegion

    init(_ buffer: UnsafeRawBufferPointer, at offset: Int = 0, region: ByteRegion) {
        self.buffer = buffer
        self.offset = offset
        self.region = region
    }

    /// Bytes left after the cursor (0 when the cursor is past the end).
    @inline(__always) var remaining: Int { offset < buffer.count ? buffer.count - offset : 0 }

    /// Whether every byte has been read.
    @inline(__always) var isAtEnd: Bool { offset >= buffer.count }

    /// An error at the cursor (or at `offset`) in this reader's region.
    func error(_ kind: SymbolsError.Kind, _ message: String, at offset: Int? = nil) -> SymbolsError {
        region.error(kind, message, at: offset ?? self.offset)
    }

    @inline(never)
    func truncated(_ what: StaticString, needs count: Int) -> SymbolsError {
        error(.truncated, "\(what) needs \(count) bytes, \(remaining) remain")
    }

    /// Throws unless `count` more bytes exist.
    @inline(__always)
    func require(_ count: Int, _ what: StaticString) throws(SymbolsError) {
        guard count >= 0, offset >= 0, count <= buffer.count &- offset else { throw truncated(what, needs: count) }
    }

    @inline(__always)
    mutating func u8(_ what: StaticString = "byte") throws(SymbolsError) -> UInt8 {
        try require(1, what)
        defer { offset &+= 1 }
        return buffer.load(fromByteOffset: offset, as: UInt8.self)
    }

    @inline(__always)
    mutating func u16(_ what: StaticString = "16-bit field") throws(SymbolsError) -> UInt16 {
        try require(2, what)
        defer { offset &+= 2 }
        return UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always)
    mutating func u32(_ what: StaticString = "32-bit field") throws(SymbolsError) -> UInt32 {
        try require(4, what)
        defer { offset &+= 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    mutating func u64(_ what: StaticString = "64-bit field") throws(SymbolsError) -> UInt64 {
        try require(8, what)
        defer { offset &+= 8 }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// A 3-byte little-endian integer (DW_FORM_strx3, DW_FORM_addrx3).
    @inline(__always)
    mutating func u24(_ what: StaticString = "24-bit field") throws(SymbolsError) -> UInt32 {
        try require(3, what)
        defer { offset &+= 3 }
        let low = UInt32(buffer.load(fromByteOffset: offset, as: UInt8.self))
        let mid = UInt32(buffer.load(fromByteOffset: offset &+ 1, as: UInt8.self))
        let high = UInt32(buffer.load(fromByteOffset: offset &+ 2, as: UInt8.self))
        return low | mid << 8 | high << 16
    }

    /// A big-endian 32-bit integer (fat Mach-O headers).
    @inline(__always)
    mutating func u32BigEndian(_ what: StaticString = "32-bit field") throws(SymbolsError) -> UInt32 {
        try require(4, what)
        defer { offset &+= 4 }
        return UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// A big-endian 64-bit integer (fat Mach-O 64 headers).
    @inline(__always)
    mutating func u64BigEndian(_ what: StaticString = "64-bit field") throws(SymbolsError) -> UInt64 {
        try require(8, what)
        defer { offset &+= 8 }
        return UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// An unsigned integer of `size` bytes (1, 2, 4 or 8; DWARF addresses and offsets).
    @inline(__always)
    mutating func unsigned(size: Int, _ what: StaticString = "address") throws(SymbolsError) -> UInt64 {
        switch size {
        case 8: return try u64(what)
        case 4: return UInt64(try u32(what))
        case 2: return UInt64(try u16(what))
        case 1: return UInt64(try u8(what))
        default: throw error(.unsupported, "\(what) of \(size) bytes")
        }
    }

    /// An unsigned LEB128 number; more than 64 significant bits is malformed.
    @inline(__always)
    mutating func uleb(_ what: StaticString = "ULEB128") throws(SymbolsError) -> UInt64 {
        // Fast path: one byte.
        if offset >= 0, offset < buffer.count {
            let first = buffer.load(fromByteOffset: offset, as: UInt8.self)
            if first < 0x80 {
                offset &+= 1
                return UInt64(first)
            }
        }
        return try ulebSlow(what)
    }

    @inline(never)
    mutating func ulebSlow(_ what: StaticString) throws(SymbolsError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset >= 0, offset < buffer.count else {
                throw error(.truncated, "\(what) runs past the end", at: start)
            }
            let byte = buffer.load(fromByteOffset: offset, as: UInt8.self)
            offset &+= 1
            let bits = UInt64(byte & 0x7f)
            if shift < 64 {
                if shift > 57, bits >> (64 - shift) != 0 {
                    throw error(.malformed, "\(what) does not fit in 64 bits", at: start)
                }
                result |= bits << shift
            } else if bits != 0 {
                throw error(.malformed, "\(what) does not fit in 64 bits", at: start)
            }
            if byte & 0x80 == 0 { return result }
            shift &+= 7
        }
    }

    /// A signed LEB128 number.
    mutating func sleb(_ what: StaticString = "SLEB128") throws(SymbolsError) -> Int64 {
        let start = offset
        var result: Int64 = 0
        var shift: UInt64 = 0
        var byte: UInt8 = 0
        repeat {
            guard offset >= 0, offset < buffer.count else {
                throw error(.truncated, "\(what) runs past the end", at: start)
            }
            byte = buffer.load(fromByteOffset: offset, as: UInt8.self)
            offset &+= 1
            if shift < 64 { result |= Int64(byte & 0x7f) << shift }
            shift &+= 7
        } while byte & 0x80 != 0
        if shift < 64, byte & 0x40 != 0 { result |= -1 << shift }
        return result
    }

    /// Moves the cursor `count` bytes forward.
    @inline(__always)
    mutating func skip(_ count: Int, _ what: StaticString = "field") throws(SymbolsError) {
        try require(count, what)
        offset &+= count
    }

    /// A NUL-terminated string's bytes (without the NUL); the cursor moves past the NUL.
    mutating func cString(_ what: StaticString = "string") throws(SymbolsError) -> UnsafeRawBufferPointer {
        let start = offset
        guard let end = ByteReader.nulIndex(in: buffer, from: start) else {
            throw error(.truncated, "\(what) has no terminating NUL", at: start)
        }
        offset = end &+ 1
        return UnsafeRawBufferPointer(rebasing: buffer[start..<end])
    }

    /// The `count` bytes at the cursor; the cursor moves past them.
    mutating func bytes(_ count: Int, _ what: StaticString = "bytes") throws(SymbolsError) -> UnsafeRawBufferPointer {
        try require(count, what)
        defer { offset &+= count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset &+ count)])
    }

    /// The index of the first NUL at or after `start`, if any.
    static func nulIndex(in buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start >= 0, start < buffer.count, let base = buffer.baseAddress else { return nil }
        guard let found = memchr(base + start, 0, buffer.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// The NUL-terminated string starting at `start` in `buffer`, or `nil` when `start` is out of
    /// bounds or no NUL follows.
    static func cString(in buffer: UnsafeRawBufferPointer, at start: Int) -> UnsafeRawBufferPointer? {
        guard let end = nulIndex(in: buffer, from: start) else { return nil }
        return UnsafeRawBufferPointer(rebasing: buffer[start..<end])
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
