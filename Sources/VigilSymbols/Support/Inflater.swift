import CZlib

/// Inflates zlib streams (compressed ELF debug sections) into owned storage of a declared size.
///
/// The declared size is checked against what zlib can produce from the input (deflate expands
/// at most ~1032:1), so a forged header cannot make us allocate gigabytes for a tiny section,
/// and the stream must produce exactly the declared number of bytes.
enum Inflater {
    /// The largest inflated section accepted.
    static let maximumSize: UInt64 = 1 << 32
    /// deflate's best case is about 1032:1; anything claiming more is forged.
    static let maximumRatio: UInt64 = 1040

    /// Inflates `input` (a zlib stream with header) into exactly `size` bytes.
    static func inflate(_ input: UnsafeRawBufferPointer, size: UInt64, region: ByteRegion) throws(SymbolsError) -> ByteStorage {
        guard size <= maximumSize, size <= UInt64(input.count) &* maximumRatio &+ 1024 else {
            throw region.error(.limitExceeded, "compressed section claims \(size) bytes from \(input.count) compressed bytes", at: 0)
        }
        let count = Int(size)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        var stream = z_stream()
        var status = inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            memory.deallocate()
            throw region.error(.malformed, "zlib inflateInit failed (\(status))", at: 0)
        }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(clamping: input.count)
        stream.next_out = memory.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(clamping: count)
        status = CZlib.inflate(&stream, Z_FINISH)
        let produced = Int(stream.total_out)
        let consumed = Int(stream.total_in)
        inflateEnd(&stream)
        guard status == Z_STREAM_END else {
            memory.deallocate()
            let reason = status == Z_BUF_ERROR || status == Z_OK ? "the stream is longer than the declared \(size) bytes or truncated"
                : "zlib error \(status)"
            throw region.error(.malformed, "cannot inflate: \(reason)", at: consumed)
        }
        guard produced == count else {
            memory.deallocate()
            throw region.error(.malformed, "inflated to \(produced) bytes, the header declares \(size)", at: consumed)
        }
        return ByteStorage(owning: memory, count: count)
    }
}
