#if canImport(CZstd)
import CZstd
#endif

/// Decompresses zstd-compressed ELF sections (`SHF_COMPRESSED` with `ELFCOMPRESS_ZSTD`, as GCC 13
/// and binutils 2.40 write them) through the system's libzstd.
///
/// The same limits as ``Inflater``: the declared size is checked against the compressed size
/// before any memory is given, and the output must be exactly the declared size. Thread-safe
/// (one decompression context per call); cost linear in the output.
enum ZstdDecoder {
    /// Decompresses `input` (one or more zstd frames) into exactly `size` bytes.
    static func decompress(_ input: UnsafeRawBufferPointer, size: UInt64, region: ByteRegion) throws(SymbolsError) -> ByteStorage {
        #if canImport(CZstd)
        return try decompressWithLibrary(input, size: size, region: region)
        #else
        throw region.error(.unsupported, "zstd-compressed sections are read where libzstd is linked (the Linux build)", at: 0)
        #endif
    }

    #if canImport(CZstd)
    private static func decompressWithLibrary(_ input: UnsafeRawBufferPointer, size: UInt64, region: ByteRegion) throws(SymbolsError) -> ByteStorage {
        guard size <= Inflater.maximumSize, size <= max(UInt64(input.count) &* Inflater.maximumRatio, Inflater.sizeAlwaysAccepted) else {
            throw region.error(.limitExceeded, "compressed section claims \(size) bytes from \(input.count) compressed bytes", at: 0)
        }
        guard let source = input.baseAddress, input.count >= 4 else {
            throw region.error(.truncated, "zstd stream of \(input.count) bytes", at: 0)
        }
        // A frame that states its own content size must agree with the section header.
        let declared = ZSTD_getFrameContentSize(source, input.count)
        if declared == ZSTD_CONTENTSIZE_ERROR {
            throw region.error(.malformed, "not a zstd frame", at: 0)
        }
        let count = Int(size)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        guard let context = ZSTD_createDCtx() else {
            memory.deallocate()
            throw region.error(.malformed, "zstd could not create a decompression context", at: 0)
        }
        defer { ZSTD_freeDCtx(context) }
        // Bound the window so that hostile frames cannot ask for more than the output size.
        _ = ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, 27)
        let produced = ZSTD_decompressDCtx(context, memory, count, source, input.count)
        if ZSTD_isError(produced) != 0 {
            memory.deallocate()
            let name = ZSTD_getErrorName(produced).map { String(cString: $0) } ?? "error \(produced)"
            throw region.error(.malformed, "cannot decompress zstd: \(name)", at: 0)
        }
        guard produced == count else {
            memory.deallocate()
            throw region.error(.malformed, "zstd decompressed to \(produced) bytes, the header declares \(size)", at: 0)
        }
        return ByteStorage(owning: memory, count: count)
    }
    #endif
}
