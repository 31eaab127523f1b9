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

    /// What the evaluation needs of one compile unit.
    private struct UnitState {
        var index: Int
        var intervals: [SubroutineMap.Interval] = []
        var lineTable: LineTable?
        /// 1 + file index per line-table file index (0: none, UInt32.max: not resolved yet).
        var files: [UInt32] = []
    }

    mutating func build() throws(SymbolsError) {
        let symbols = try slice.loadSymbolTable(diagnostics: &diagnostics)
        let base = slice.imageVMAddress
        var info: DWARFDebugInfo?
        var unitRanges: [CompileUnitRanges.Range] = []
        if slice.hasDWARF {
            var sections: DWARFSections?
            do throws(SymbolsError) {
                sections = try DWARFSections(slice: slice)
            } catch {
                // As llvm-symbolizer does: names from the symbol table, and say why there are no lines.
                guard !symbols.entries.isEmpty else { throw error }
                diagnostics.append(SymbolsError(error.kind, "the DWARF cannot be read (\(error.message)); functions come from the symbol table, without files, lines or inlining",
                                                fileOffset: error.fileOffset, path: slice.path))
            }
            if let sections {
                let debugInfo = DWARFDebugInfo(sections: sections)
                diagnostics.append(contentsOf: debugInfo.diagnostics)
                debugInfo.diagnostics = []
                info = debugInfo
                unitRanges = CompileUnitRanges(info: debugInfo, diagnostics: &diagnostics).ranges
                usedDWARF = true
            }
        }
        guard info != nil || !symbols.entries.isEmpty else {
            throw SymbolsError(.noSymbols, "the \(slice.arch) slice has neither DWARF nor a symbol table", path: slice.path)
        }

        // The units addresses can reach (through the aranges), with their maps and line tables.
        var states: [UnitState?] = Array(repeating: nil, count: info?.units.count ?? 0)
        var rangeUnits: [Int] = [] // per unit range: the unit index, or -1
        var lineTables: [UInt64: LineTable] = [:]
        var boundaries: [UInt64] = []
        boundaries.reserveCapacity(symbols.entries.count * 2 + unitRanges.count * 2)
        symbols.boundaries(into: &boundaries)
        if let info {
            for range in unitRanges {
                boundaries.append(range.low)
                boundaries.append(range.high)
                guard let unitIndex = SymbolMapBuilder.unitIndex(containing: range.unitOffset, in: info),
                      info.units[unitIndex].isCompileUnit else {
                    rangeUnits.append(-1)
                    continue
                }
                rangeUnits.append(unitIndex)
                guard states[unitIndex] == nil else { continue }
                var state = UnitState(index: unitIndex)
                let unit = info.units[unitIndex]
                let attributes = info.attributes[unitIndex]
                let map = SubroutineMap(records: attributes.records) { record in
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
                state.intervals = map.intervals
                for interval in map.intervals {
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
                    if let table = state.lineTable {
                        table.boundaries(into: &boundaries)
                        state.files = Array(repeating: .max, count: table.files.count + 1)
                    }
                }
                states[unitIndex] = state
            }
        }
        boundaries.sort()

        // Per-record and per-symbol memos (arrays, not dictionaries: this loop is the build's cost).
        let records = info?.records ?? []
        var recordNames = [ByteString](repeating: ByteString(start: nil, count: -2), count: records.count)
        var recordFunctions = [UInt32](repeating: .max, count: records.count)
        var parentSymbol = [Int](repeating: .min, count: records.count)
        var parentLocation = [UInt32](repeating: 0, count: records.count)
        var symbolFunctions = [UInt32](repeating: .max, count: symbols.entries.count)
        var symbolFiles = [UInt32](repeating: .max, count: symbols.entries.count)

        func recordFunction(_ record: Int32, _ builder: inout SymbolMapBuilder) throws(SymbolsError) -> UInt32 {
            let cached = recordFunctions[Int(record)]
            if cached != .max { return cached }
            var name = recordNames[Int(record)]
            if name.count == -2 {
                name = builder.name(of: record, info: info!)
                recordNames[Int(record)] = name
            }
            var function: UInt32 = 0
            if name.exists {
                let lowPC = records[Int(record)].lowPC
                function = try builder.tables.function(name: name, entry: lowPC.flatMap { $0 >= base ? $0 - base : nil })
            }
            recordFunctions[Int(record)] = function
            return function
        }
        func symbolFunction(_ index: Int, _ builder: inout SymbolMapBuilder) throws(SymbolsError) -> UInt32 {
            let cached = symbolFunctions[index]
            if cached != .max { return cached }
            let entry = symbols.entries[index]
            let file = builder.slice.storage.bytes
            let name = ByteString(UnsafeRawBufferPointer(rebasing: file[entry.nameOffset..<(entry.nameOffset + entry.nameLength)]))
            let function = try builder.tables.function(name: name, entry: entry.address >= base ? entry.address - base : nil)
            symbolFunctions[index] = function
            return function
        }
        func symbolFile(_ index: Int, _ builder: inout SymbolMapBuilder) throws(SymbolsError) -> UInt32 {
            let cached = symbolFiles[index]
            if cached != .max { return cached }
            let entry = symbols.entries[index]
            var file: UInt32 = 0
            if entry.fileNameLength >= 0 {
                let bytes = builder.slice.storage.bytes
                file = try builder.tables.file(path: Array(bytes[entry.fileNameOffset..<(entry.fileNameOffset + entry.fileNameLength)]))
            }
            symbolFiles[index] = file
            return file
        }
        func fileIndex(_ state: inout UnitState, _ index: UInt32, _ builder: inout SymbolMapBuilder) throws(SymbolsError) -> UInt32 {
            if Int(index) < state.files.count, state.files[Int(index)] != .max { return state.files[Int(index)] }
            var result: UInt32 = 0
            if let table = state.lineTable,
               let path = table.path(ofFile: UInt64(index), compilationDirectory: info!.attributes[state.index].compDir) {
                result = try builder.tables.file(path: path)
            }
            if Int(index) < state.files.count { state.files[Int(index)] = result }
            return result
        }

        // Evaluate once per span, in address order; the current unit's tables stay in locals.
        var rangeCursor = 0
        var currentUnit = -1
        var state = UnitState(index: -1)
        var rows: [LineTable.Row] = []
        var sequences: [LineTable.Sequence] = []
        var chain: [Int32] = []
        chain.reserveCapacity(32)
        var previous: UInt64?
        for point in boundaries {
            if point == previous { continue }
            previous = point
            guard point >= base else { continue }
            let relative = point - base

            while rangeCursor < unitRanges.count, unitRanges[rangeCursor].high <= point { rangeCursor += 1 }
            var unitIndex = -1
            if rangeCursor < unitRanges.count, unitRanges[rangeCursor].low <= point { unitIndex = rangeUnits[rangeCursor] }
            if unitIndex != currentUnit {
                if currentUnit >= 0 { states[currentUnit] = state }
                currentUnit = unitIndex
                if unitIndex >= 0, let loaded = states[unitIndex] {
                    state = loaded
                    rows = loaded.lineTable?.rows ?? []
                    sequences = loaded.lineTable?.sequences ?? []
                } else {
                    state = UnitState(index: -1)
                    rows = []
                    sequences = []
                    currentUnit = -1
                }
            }

            var innermostFile: UInt32 = 0
            var innermostLine: UInt32 = 0
            chain.removeAll(keepingCapacity: true)
            if currentUnit >= 0 {
                if let rowIndex = LineTable.row(for: point, rows: rows, sequences: sequences) {
                    let row = rows[rowIndex]
                    innermostFile = try fileIndex(&state, row.file, &self)
                    // llvm takes the row's line only when its file resolves.
                    if innermostFile != 0 { innermostLine = row.line }
                }
                if let leaf = SubroutineMap.record(containing: point, in: state.intervals) {
                    var current = leaf
                    while current >= 0, chain.count < SymbolMapBuilder.maximumChainLength {
                        chain.append(current)
                        if records[Int(current)].isSubprogram { break }
                        current = records[Int(current)].parent
                    }
                }
            }
            let symbol = symbols.index(covering: point)

            var parent: UInt32 = 0
            let innermostFunction: UInt32
            if chain.count > 1 {
                let leaf = Int(chain[0])
                let symbolKey = symbol ?? -1
                if parentSymbol[leaf] == symbolKey {
                    parent = parentLocation[leaf]
                } else {
                    // Outermost first, so parents get lower indexes than children.
                    var link: UInt32 = 0
                    for position in stride(from: chain.count - 1, through: 1, by: -1) {
                        let callee = records[Int(chain[position - 1])]
                        let isOutermost = position == chain.count - 1
                        let function: UInt32
                        if isOutermost, let symbol {
                            function = try symbolFunction(symbol, &self)
                        } else {
                            function = try recordFunction(chain[position], &self)
                        }
                        var file = state.lineTable == nil ? 0 : try fileIndex(&state, callee.callFile, &self)
                        if file == 0, isOutermost, let symbol { file = try symbolFile(symbol, &self) }
                        link = tables.location(SymCacheTables.Location(function: function, file: file, line: callee.callLine, parent: link))
                    }
                    parent = link
                    parentSymbol[leaf] = symbolKey
                    parentLocation[leaf] = link
                }
                innermostFunction = try recordFunction(chain[0], &self)
            } else if let symbol {
                innermostFunction = try symbolFunction(symbol, &self)
                if innermostFile == 0 { innermostFile = try symbolFile(symbol, &self) }
            } else if let leaf = chain.first {
                innermostFunction = try recordFunction(leaf, &self)
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

    /// The function name llvm prints for a subroutine DIE: the linkage name found through
    /// `DW_AT_abstract_origin`/`DW_AT_specification` (depth-first, specification first), else the
    /// plain name found the same way.
    private func name(of record: Int32, info: DWARFDebugInfo) -> ByteString {
        let start = info.records[Int(record)].offset
        var result = search(from: start, info: info, linkage: true)
        if !result.exists { result = search(from: start, info: info, linkage: false) }
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
