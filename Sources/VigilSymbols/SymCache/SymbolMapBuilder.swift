/// Turns a slice's DWARF and symbol table into SymCache tables: for every address span where
/// the answer is the same, the chain of frames `llvm-symbolizer --inlining` would print.
///
/// How: collect every address at which any input can change the answer (compile unit ranges,
/// subroutine ranges, line rows, symbols), then evaluate llvm's lookup once per span, in
/// address order, interning the frames. Lookup semantics follow llvm (`DWARFContext::
/// getInliningInfoForAddress` with the symbol-table override of the outermost frame name), so
/// the differential tests compare equal. Cost: O(b log n) for b boundaries.
struct SymbolMapBuilder {
    /// Inline chains longer than this are cut (real ones stay under ~30).
    static let maximumChainLength = 256
    /// How many `DW_AT_abstract_origin`/`DW_AT_specification` hops a name search follows.
    static let maximumNameHops = 64

    let slice: ObjectSlice
    private(set) var diagnostics: [SymbolsError] = []
    private(set) var tables = SymCacheTables()
    private(set) var usedDWARF = false

    init(slice: ObjectSlice) {
        self.slice = slice
    }

    /// Per compile unit, built the first time an address falls in the unit.
    private final class UnitState {
        let index: Int
        var map: SubroutineMap?
        var lineTable: LineTable?
        var files: [UInt64: UInt32] = [:]
        init(index: Int) { self.index = index }
    }

    mutating func build() throws(SymbolsError) {
        let symbols = try slice.loadSymbolTable(diagnostics: &diagnostics)
        let base = slice.imageVMAddress
        var info: DWARFDebugInfo?
        var unitRanges: CompileUnitRanges?
        if slice.hasDWARF {
            let sections = try DWARFSections(slice: slice)
            let debugInfo = DWARFDebugInfo(sections: sections)
            diagnostics.append(contentsOf: debugInfo.diagnostics)
            debugInfo.diagnostics = []
            info = debugInfo
            unitRanges = CompileUnitRanges(info: debugInfo, diagnostics: &diagnostics)
            usedDWARF = true
        }
        guard info != nil || !symbols.entries.isEmpty else {
            throw SymbolsError(.noSymbols, "the \(slice.arch) slice has neither DWARF nor a symbol table", path: slice.path)
        }

        // Units that an address can reach, with their maps and line tables.
        var states: [Int: UnitState] = [:] // unit index → state
        var lineTables: [UInt64: LineTable] = [:]
        var boundaries: [UInt64] = []
        symbols.boundaries(into: &boundaries)
        if let info, let unitRanges {
            for range in unitRanges.ranges {
                boundaries.append(range.low)
                boundaries.append(range.high)
                guard let unitIndex = SymbolMapBuilder.unitIndex(containing: range.unitOffset, in: info),
                      states[unitIndex] == nil else { continue }
                let state = UnitState(index: unitIndex)
                states[unitIndex] = state
                let unit = info.units[unitIndex]
                let attributes = info.attributes[unitIndex]
                state.map = SubroutineMap(records: attributes.records) { record in
                    let item = info.records[record]
                    do throws(SymbolsError) {
                        return try RangeLists.ranges(lowPC: item.lowPC, highPC: item.highPC, highPCIsOffset: item.highPCIsOffset,
                                                     ranges: item.ranges, rangesIsIndex: item.rangesIsIndex, unit: unit,
                                                     attributes: attributes, info: info)
                    } catch {
                        diagnostics.append(error)
                        return []
                    }
                }
                for interval in state.map?.intervals ?? [] {
                    boundaries.append(interval.low)
                    boundaries.append(interval.high)
                }
                if let offset = attributes.stmtList {
                    if let table = lineTables[offset] {
                        state.lineTable = table
                    } else {
                        do throws(SymbolsError) {
                            let table = try LineTable(info: info, offset: offset, unit: unit, attributes: attributes,
                                                      diagnostics: &diagnostics)
                            lineTables[offset] = table
                            state.lineTable = table
                        } catch {
                            diagnostics.append(error)
                        }
                    }
                    state.lineTable?.boundaries(into: &boundaries)
                }
            }
        }
        boundaries.sort()

        // Evaluate once per span.
        var nameCache: [Int32: ByteString] = [:]
        var recordFunctions: [Int32: UInt32] = [:]
        var symbolFunctions: [Int: UInt32] = [:]
        var symbolFiles: [Int: UInt32] = [:]
        var parentCache: [ParentKey: UInt32] = [:]
        var previous: UInt64?
        for point in boundaries {
            if point == previous { continue }
            previous = point
            guard point >= base else { continue }
            let relative = point - base

            var innermostFile: UInt32 = 0
            var innermostLine: UInt32 = 0
            var chain: [Int32] = []
            var unitState: UnitState?
            if let info, let unitRanges, let unitOffset = unitRanges.unitOffset(containing: point),
               let unitIndex = SymbolMapBuilder.unitIndex(containing: unitOffset, in: info),
               info.units[unitIndex].isCompileUnit, let state = states[unitIndex] {
                unitState = state
                if let table = state.lineTable, let rowIndex = table.row(for: point) {
                    let row = table.rows[rowIndex]
                    innermostFile = try fileIndex(state: state, info: info, index: UInt64(row.file))
                    innermostLine = row.line
                }
                if let leaf = state.map?.record(containing: point) {
                    var current: Int32 = leaf
                    while current >= 0, chain.count < SymbolMapBuilder.maximumChainLength {
                        chain.append(current)
                        if info.records[Int(current)].isSubprogram { break }
                        current = info.records[Int(current)].parent
                    }
                }
            }
            let symbol = symbols.index(covering: point)

            // The innermost location, with the chain above it interned once per (leaf, symbol).
            var parent: UInt32 = 0
            let innermostFunction: UInt32
            if chain.count > 1, let info, let state = unitState {
                let key = ParentKey(leaf: chain[0], symbol: symbol ?? -1)
                if let cached = parentCache[key] {
                    parent = cached
                } else {
                    // Outermost first, so parents get lower indexes than children.
                    var link: UInt32 = 0
                    for position in stride(from: chain.count - 1, through: 1, by: -1) {
                        let record = chain[position]
                        let callee = info.records[Int(chain[position - 1])]
                        let function: UInt32
                        if position == chain.count - 1, let symbol {
                            function = try symbolFunction(symbol, symbols: symbols, cache: &symbolFunctions)
                        } else {
                            function = try recordFunction(record, info: info, names: &nameCache, cache: &recordFunctions)
                        }
                        var file = state.lineTable == nil ? 0 : try fileIndex(state: state, info: info, index: UInt64(callee.callFile))
                        if file == 0, position == chain.count - 1, let symbol {
                            file = try symbolFile(symbol, symbols: symbols, cache: &symbolFiles)
                        }
                        link = tables.location(SymCacheTables.Location(function: function, file: file, line: callee.callLine, parent: link))
                    }
                    parent = link
                    parentCache[key] = link
                }
                innermostFunction = try recordFunction(chain[0], info: info, names: &nameCache, cache: &recordFunctions)
            } else if let symbol {
                innermostFunction = try symbolFunction(symbol, symbols: symbols, cache: &symbolFunctions)
                if innermostFile == 0 { innermostFile = try symbolFile(symbol, symbols: symbols, cache: &symbolFiles) }
            } else if let info, let leaf = chain.first {
                innermostFunction = try recordFunction(leaf, info: info, names: &nameCache, cache: &recordFunctions)
            } else {
                innermostFunction = 0
            }
            if innermostFunction == 0 && innermostFile == 0 && innermostLine == 0 && parent == 0 {
                tables.appendRange(start: relative, location: 0)
            } else {
                let location = tables.location(SymCacheTables.Location(function: innermostFunction, file: innermostFile,
                                                                       line: innermostLine, parent: parent))
                tables.appendRange(start: relative, location: location)
            }
        }
        tables.appendRange(start: (boundaries.last ?? base) &- base &+ 1, location: 0)
    }

    private struct ParentKey: Hashable {
        var leaf: Int32
        var symbol: Int
    }

    /// The unit whose span holds `offset` (an aranges set may name any offset inside a unit).
    static func unitIndex(containing offset: Int, in info: DWARFDebugInfo) -> Int? {
        var low = 0, high = info.units.count
        while low < high {
            let middle = (low + high) / 2
            if info.units[middle].end <= offset { low = middle + 1 } else { high = middle }
        }
        guard low < info.units.count, info.units[low].offset <= offset else { return nil }
        return low
    }

    private mutating func symbolFunction(_ index: Int, symbols: SymbolTable, cache: inout [Int: UInt32]) throws(SymbolsError) -> UInt32 {
        if let cached = cache[index] { return cached }
        let entry = symbols.entries[index]
        let file = slice.storage.bytes
        let name = ByteString(UnsafeRawBufferPointer(rebasing: file[entry.nameOffset..<(entry.nameOffset + entry.nameLength)]))
        let relative = entry.address >= slice.imageVMAddress ? entry.address - slice.imageVMAddress : nil
        let function = try tables.function(name: name, entry: relative)
        cache[index] = function
        return function
    }

    /// 1 + the file an ELF local symbol's `STT_FILE` names, or 0.
    private mutating func symbolFile(_ index: Int, symbols: SymbolTable, cache: inout [Int: UInt32]) throws(SymbolsError) -> UInt32 {
        if let cached = cache[index] { return cached }
        let entry = symbols.entries[index]
        var file: UInt32 = 0
        if entry.fileNameLength >= 0 {
            let bytes = slice.storage.bytes
            file = try tables.file(path: Array(bytes[entry.fileNameOffset..<(entry.fileNameOffset + entry.fileNameLength)]))
        }
        cache[index] = file
        return file
    }

    private mutating func recordFunction(_ record: Int32, info: DWARFDebugInfo, names: inout [Int32: ByteString],
                                         cache: inout [Int32: UInt32]) throws(SymbolsError) -> UInt32 {
        if let cached = cache[record] { return cached }
        let name = self.name(of: record, info: info, cache: &names)
        var function: UInt32 = 0
        if name.exists {
            let lowPC = info.records[Int(record)].lowPC
            let relative = lowPC.flatMap { $0 >= slice.imageVMAddress ? $0 - slice.imageVMAddress : nil }
            function = try tables.function(name: name, entry: relative)
        }
        cache[record] = function
        return function
    }

    private mutating func fileIndex(state: UnitState, info: DWARFDebugInfo, index: UInt64) throws(SymbolsError) -> UInt32 {
        if let cached = state.files[index] { return cached }
        var result: UInt32 = 0
        if let table = state.lineTable,
           let path = table.path(ofFile: index, compilationDirectory: info.attributes[state.index].compDir) {
            result = try tables.file(path: path)
        }
        state.files[index] = result
        return result
    }

    /// The function name llvm prints for a subroutine DIE: the linkage name found through
    /// `DW_AT_abstract_origin`/`DW_AT_specification` (depth-first, specification first), else the
    /// plain name found the same way.
    private func name(of record: Int32, info: DWARFDebugInfo, cache: inout [Int32: ByteString]) -> ByteString {
        if let cached = cache[record] { return cached }
        let start = info.records[Int(record)].offset
        var result = search(from: start, info: info, linkage: true)
        if !result.exists { result = search(from: start, info: info, linkage: false) }
        cache[record] = result
        return result
    }

    private func search(from start: Int, info: DWARFDebugInfo, linkage: Bool) -> ByteString {
        var work = [start]
        var seen: Set<Int> = [start]
        var hops = 0
        while let offset = work.popLast(), hops < SymbolMapBuilder.maximumNameHops {
            hops += 1
            guard let die = info.nameAttributes(at: offset) else { continue }
            let found = linkage ? die.linkageName : die.name
            if found.exists { return found }
            if let origin = die.abstractOrigin.flatMap({ Int(exactly: $0) }), seen.insert(origin).inserted { work.append(origin) }
            if let specification = die.specification.flatMap({ Int(exactly: $0) }), seen.insert(specification).inserted {
                work.append(specification)
            }
        }
        return .absent
    }
}
