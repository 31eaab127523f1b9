import Foundation

/// Builds a SymCache from one slice of an object or debug file.
///
/// ```swift
/// let slice = try ObjectFile(path: dsymPath).slice(arch: "arm64")
/// let output = try SymCacheWriter().write(slice)
/// try output.data.write(to: cacheURL)        // open later with SymCache(contentsOf:)
/// for warning in output.warnings { log(warning) }
/// ```
///
/// With DWARF, every address gets its function, file, line and inline chain; without, the
/// symbol table gives function names without lines. Parts of the DWARF that cannot be read (a
/// malformed unit, an unknown form) are skipped and reported in ``Output/warnings``, so one
/// bad unit does not lose the rest. Cost: one pass over `.debug_info` and the line tables of
/// the units that cover code, O(rows · log rows); memory proportional to the rows and DIEs of
/// subroutines. Thread-safe (a value with no shared state).
public struct SymCacheWriter: Sendable {
    /// The result of a build.
    public struct Output: Sendable {
        /// The SymCache bytes.
        public var data: Data
        /// What could not be read and was skipped (empty for well-formed input).
        public var warnings: [SymbolsError]
        /// How many address ranges, locations, functions and files the cache holds.
        public var rangeCount: Int
        public var locationCount: Int
        public var functionCount: Int
        public var fileCount: Int
        /// Whether DWARF was used (else only the symbol table).
        public var usedDWARF: Bool
    }

    public init() {}

    /// Builds the SymCache of `slice`. Throws when the slice has neither DWARF nor symbols, or
    /// when its structure (not just one unit) cannot be read.
    public func write(_ slice: ObjectSlice) throws(SymbolsError) -> Output {
        var builder = SymbolMapBuilder(slice: slice)
        do throws(SymbolsError) {
            try builder.build()
        } catch {
            throw error.at(path: slice.path)
        }
        let tables = builder.tables
        let bytes = try tables.serialize(arch: slice.arch, id: slice.id, imageVMAddress: slice.imageVMAddress,
                                         flags: builder.usedDWARF ? 1 : 0)
        return Output(data: Data(bytes), warnings: builder.diagnostics.map { $0.at(path: slice.path) },
                      rangeCount: tables.rangeStarts.count, locationCount: tables.locations.count,
                      functionCount: tables.functions.count, fileCount: tables.files.count, usedDWARF: builder.usedDWARF)
    }
}

extension SymCache {
    /// Builds the SymCache of `slice` in memory and opens it (for one-off symbolication of a
    /// report against a dSYM; a server should build once and keep the bytes).
    public convenience init(building slice: ObjectSlice) throws(SymbolsError) {
        let output = try SymCacheWriter().write(slice)
        try self.init(data: output.data)
    }
}
