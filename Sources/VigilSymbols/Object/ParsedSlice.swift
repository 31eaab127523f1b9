/// Everything a format parser learned about one slice; ``ObjectSlice`` exposes it.
struct ParsedSlice: Sendable {
    /// Where the symbol table is, per format.
    enum SymbolTableLocation: Sendable {
        /// `LC_SYMTAB`: absolute file offsets of the nlist array and the string table.
        case machO(symbolsOffset: UInt64, count: UInt32, stringsOffset: UInt64, stringsSize: UInt32, is64Bit: Bool)
        /// `.symtab` (or `.dynsym` when there is no `.symtab`): section header indexes.
        case elf(symbols: Int, strings: Int)
    }

    var format: ObjectFormat
    var arch: String
    var id: DebugIdentifier?
    var kind: ObjectKind
    var imageVMAddress: UInt64
    var imageSize: UInt64
    var sections: [SectionRecord]
    var symbolTable: SymbolTableLocation?
    var symbolCount: Int
    var debugLink: String?
    var platform: String?
    var is64Bit: Bool
    /// Whether the only symbol table is ELF's `.dynsym` (a stripped shared library or executable).
    var symbolTableIsDynamic = false
    /// ELF `e_machine`, for format-specific symbol rules (AArch64/ARM mapping symbols).
    var elfMachine: UInt16
    /// ELF `ET_REL`: symbol addresses are relative to their section.
    var isRelocatable: Bool
    /// Absolute file offset and size of the slice (the whole file unless inside a fat file).
    var sliceOffset: UInt64
    var sliceSize: UInt64
}
