/// One section of a parsed slice, as the load commands or section headers describe it.
struct SectionRecord: Sendable {
    /// How a section's file bytes are stored.
    enum Compression: Sendable, Equatable {
        /// Stored as is.
        case none
        /// ELF `SHF_COMPRESSED` with an `Elf64_Chdr` of type `ELFCOMPRESS_ZLIB`; the header is
        /// `headerSize` bytes, the contents inflate to `uncompressedSize` bytes.
        case elfZlib(headerSize: Int, uncompressedSize: UInt64)
        /// ELF `SHF_COMPRESSED` with `ELFCOMPRESS_ZSTD` (GCC 13, binutils 2.40): the header, then
        /// zstd frames that decompress to `uncompressedSize` bytes.
        case elfZstd(headerSize: Int, uncompressedSize: UInt64)
        /// ELF `SHF_COMPRESSED` with a compression type this reader does not know: reading the
        /// section fails (and a symbol table, when there is one, stands in for the DWARF).
        case elfUnknown(type: UInt32, uncompressedSize: UInt64)
        /// GNU `.zdebug_*`: `"ZLIB"`, a big-endian 64-bit size, then a zlib stream.
        case gnuZlib(uncompressedSize: UInt64)
    }

    /// The Mach-O segment name (`__DWARF`), empty for ELF.
    var segment: String
    /// The section name as the file spells it (`__debug_info`, `.debug_info`).
    var name: String
    /// The section's virtual address.
    var address: UInt64
    /// The section's size in memory (for compressed ELF sections, the uncompressed size).
    var size: UInt64
    /// The absolute file offset of the stored bytes, `nil` when the section has none
    /// (zero-fill, `SHT_NOBITS`, or a dSYM's code sections).
    var fileOffset: UInt64?
    /// How many bytes are stored in the file at ``fileOffset``.
    var fileSize: UInt64
    /// How the stored bytes are compressed.
    var compression: Compression
    /// Whether the section holds executable code (for symbol sizes and `symbols info`).
    var isCode: Bool
    /// The section's index in the file's own numbering (Mach-O: 0-based order of appearance;
    /// ELF: the section header index).
    var index: Int

    /// The DWARF name without its `__`/`.`/`.z` prefix (`debug_info`), or `nil` when the
    /// section is not a DWARF section. Mach-O truncates names to 16 bytes
    /// (`__debug_str_offs`), which this maps back.
    var dwarfName: String? {
        if !segment.isEmpty {
            guard segment == "__DWARF", name.hasPrefix("__") else { return nil }
            let bare = String(name.dropFirst(2))
            switch bare {
            case "debug_str_offs": return "debug_str_offsets"
            default: return bare
            }
        }
        if name.hasPrefix(".zdebug_") { return "debug_" + name.dropFirst(".zdebug_".count) }
        if name.hasPrefix(".debug_") { return String(name.dropFirst()) }
        return nil
    }
}
