/// The tables of a SymCache while it is being built: interned strings, files, functions and
/// locations, and the address ranges, then serialized by ``serialize(...)``.
///
/// Interning makes every table deduplicated: one string per distinct byte sequence, one
/// location per distinct (function, file, line, parent).
struct SymCacheTables {
    private(set) var strings: [UInt8] = []
    private var borrowedStrings: [ByteString: UInt32] = [:]
    private var ownedStrings: [[UInt8]: UInt32] = [:]

    struct Function: Hashable {
        var nameOffset: UInt32
        var nameLength: UInt32
        var entry: UInt32
    }
    private(set) var functions: [Function] = []
    private var functionIndex: [Function: UInt32] = [:]

    private(set) var files: [(UInt32, UInt32)] = []
    private var fileIndex: [UInt64: UInt32] = [:] // (offset << 32 | length) → index

    struct Location: Hashable {
        /// 1 + function index, 0 for none; likewise file and parent.
        var function: UInt32
        var file: UInt32
        var line: UInt32
        var parent: UInt32
    }
    private(set) var locations: [Location] = []
    private var locationIndex: [Location: UInt32] = [:]

    /// Range starts (relative addresses) and 1 + innermost location (0: none).
    private(set) var rangeStarts: [UInt64] = []
    private(set) var rangeLocations: [UInt32] = []

    /// The cache may not exceed what 32-bit offsets address.
    static let maximumStringBytes = Int(UInt32.max) - 1

    mutating func intern(borrowed string: ByteString) throws(SymbolsError) -> (UInt32, UInt32) {
        if let offset = borrowedStrings[string] { return (offset, UInt32(string.count)) }
        let offset = try appendString(string.buffer)
        borrowedStrings[string] = offset
        return (offset, UInt32(string.count))
    }

    mutating func intern(owned bytes: [UInt8]) throws(SymbolsError) -> (UInt32, UInt32) {
        if let offset = ownedStrings[bytes] { return (offset, UInt32(bytes.count)) }
        guard strings.count + bytes.count <= SymCacheTables.maximumStringBytes else {
            throw SymbolsError(.limitExceeded, "the SymCache string table would exceed 4 GiB")
        }
        let offset = UInt32(strings.count)
        strings.append(contentsOf: bytes)
        ownedStrings[bytes] = offset
        return (offset, UInt32(bytes.count))
    }

    private mutating func appendString(_ bytes: UnsafeRawBufferPointer) throws(SymbolsError) -> UInt32 {
        guard strings.count + bytes.count <= SymCacheTables.maximumStringBytes else {
            throw SymbolsError(.limitExceeded, "the SymCache string table would exceed 4 GiB")
        }
        let offset = UInt32(strings.count)
        strings.append(contentsOf: bytes)
        return offset
    }

    /// 1 + the index of the function `name` starting at `entry` (relative; nil: unknown).
    mutating func function(name: ByteString, entry: UInt64?) throws(SymbolsError) -> UInt32 {
        let (offset, length) = try intern(borrowed: name)
        var entryValue = SymCacheFormat.unknownEntry
        if let entry, entry < UInt64(SymCacheFormat.unknownEntry) { entryValue = UInt32(entry) }
        let function = Function(nameOffset: offset, nameLength: length, entry: entryValue)
        if let index = functionIndex[function] { return index + 1 }
        let index = UInt32(functions.count)
        functions.append(function)
        functionIndex[function] = index
        return index + 1
    }

    /// 1 + the index of the file with `path`.
    mutating func file(path: [UInt8]) throws(SymbolsError) -> UInt32 {
        let (offset, length) = try intern(owned: path)
        let key = UInt64(offset) << 32 | UInt64(length)
        if let index = fileIndex[key] { return index + 1 }
        let index = UInt32(files.count)
        files.append((offset, length))
        fileIndex[key] = index
        return index + 1
    }

    /// 1 + the index of `location` (its parent must already exist).
    mutating func location(_ location: Location) -> UInt32 {
        if let index = locationIndex[location] { return index + 1 }
        let index = UInt32(locations.count)
        locations.append(location)
        locationIndex[location] = index
        return index + 1
    }

    /// Starts a range at `start` (relative, increasing) with `location` (0: none); merged into
    /// the previous range when the location is the same.
    mutating func appendRange(start: UInt64, location: UInt32) {
        if let last = rangeLocations.last, last == location { return }
        if let lastStart = rangeStarts.last, lastStart == start {
            rangeLocations[rangeLocations.count - 1] = location
            if rangeLocations.count >= 2, rangeLocations[rangeLocations.count - 2] == location {
                rangeStarts.removeLast()
                rangeLocations.removeLast()
            }
            return
        }
        if rangeStarts.isEmpty, location == 0 { return }
        rangeStarts.append(start)
        rangeLocations.append(location)
    }

    /// The SymCache bytes.
    func serialize(arch: String, id: DebugIdentifier?, imageVMAddress: UInt64, flags: UInt32) throws(SymbolsError) -> [UInt8] {
        var tables = self
        let (archOffset, archLength) = try tables.intern(owned: Array(arch.utf8))
        // The last range must end the covered span.
        if let last = tables.rangeLocations.last, last != 0 {
            throw SymbolsError(.malformed, "internal: the last SymCache range has a location")
        }
        let addressWidth = (tables.rangeStarts.last ?? 0) > UInt64(UInt32.max) ? 8 : 4
        let locationIndexWidth = SymCacheFormat.width(for: UInt64(tables.locations.count))
        let functionWidth = SymCacheFormat.width(for: UInt64(tables.functions.count))
        let fileWidth = SymCacheFormat.width(for: UInt64(tables.files.count))
        let lineWidth = SymCacheFormat.width(for: UInt64(tables.locations.map(\.line).max() ?? 0))
        let parentWidth = locationIndexWidth

        var bytes = [UInt8](repeating: 0, count: SymCacheFormat.headerSize)
        func align() { while bytes.count % 8 != 0 { bytes.append(0) } }
        var offsets: [Int] = []
        offsets.append(bytes.count)
        for start in tables.rangeStarts { SymCacheFormat.store(start, width: addressWidth, into: &bytes) }
        align(); offsets.append(bytes.count)
        for location in tables.rangeLocations { SymCacheFormat.store(UInt64(location), width: locationIndexWidth, into: &bytes) }
        align(); offsets.append(bytes.count)
        for location in tables.locations {
            SymCacheFormat.store(UInt64(location.function), width: functionWidth, into: &bytes)
            SymCacheFormat.store(UInt64(location.file), width: fileWidth, into: &bytes)
            SymCacheFormat.store(UInt64(location.line), width: lineWidth, into: &bytes)
            SymCacheFormat.store(UInt64(location.parent), width: parentWidth, into: &bytes)
        }
        align(); offsets.append(bytes.count)
        for function in tables.functions {
            SymCacheFormat.store(UInt64(function.nameOffset), width: 4, into: &bytes)
            SymCacheFormat.store(UInt64(function.nameLength), width: 4, into: &bytes)
            SymCacheFormat.store(UInt64(function.entry), width: 4, into: &bytes)
        }
        align(); offsets.append(bytes.count)
        for (offset, length) in tables.files {
            SymCacheFormat.store(UInt64(offset), width: 4, into: &bytes)
            SymCacheFormat.store(UInt64(length), width: 4, into: &bytes)
        }
        align(); offsets.append(bytes.count)
        bytes.append(contentsOf: tables.strings)
        guard bytes.count < Int(UInt32.max) else {
            throw SymbolsError(.limitExceeded, "the SymCache would exceed 4 GiB")
        }

        func put(_ value: UInt64, at position: Int, width: Int) {
            var remaining = value
            for index in 0..<width {
                bytes[position + index] = UInt8(truncatingIfNeeded: remaining)
                remaining >>= 8
            }
        }
        for (index, byte) in SymCacheFormat.magic.enumerated() { bytes[index] = byte }
        typealias F = SymCacheFormat.Field
        put(UInt64(SymCacheFormat.endianMarker), at: F.endian, width: 2)
        put(UInt64(SymCacheFormat.version), at: F.version, width: 2)
        put(UInt64(SymCacheFormat.headerSize), at: F.headerSize, width: 4)
        put(UInt64(flags), at: F.flags, width: 4)
        put(UInt64(bytes.count), at: F.fileSize, width: 8)
        put(imageVMAddress, at: F.imageVMAddress, width: 8)
        if let id {
            put(id.kind == .uuid ? 1 : 2, at: F.idKind, width: 1)
            put(UInt64(id.bytes.count), at: F.idLength, width: 1)
            for (index, byte) in id.bytes.prefix(SymCacheFormat.maximumIDLength).enumerated() { bytes[F.id + index] = byte }
        }
        put(UInt64(addressWidth), at: F.addressWidth, width: 1)
        put(UInt64(locationIndexWidth), at: F.locationIndexWidth, width: 1)
        put(UInt64(functionWidth), at: F.functionWidth, width: 1)
        put(UInt64(fileWidth), at: F.fileWidth, width: 1)
        put(UInt64(lineWidth), at: F.lineWidth, width: 1)
        put(UInt64(parentWidth), at: F.parentWidth, width: 1)
        put(UInt64(archOffset), at: F.archOffset, width: 4)
        put(UInt64(archLength), at: F.archLength, width: 4)
        put(UInt64(tables.rangeStarts.count), at: F.rangeCount, width: 4)
        put(UInt64(tables.locations.count), at: F.locationCount, width: 4)
        put(UInt64(tables.functions.count), at: F.functionCount, width: 4)
        put(UInt64(tables.files.count), at: F.fileCount, width: 4)
        put(UInt64(tables.strings.count), at: F.stringsSize, width: 4)
        let fields = [F.rangeStartsOffset, F.rangeLocationsOffset, F.locationsOffset, F.functionsOffset, F.filesOffset, F.stringsOffset]
        for (field, offset) in zip(fields, offsets) { put(UInt64(offset), at: field, width: 4) }
        return bytes
    }
}
