import Foundation

/// A SymCache opened for lookups: the address → frames map of one image, read in place from
/// a memory-mapped file or from bytes (no parsing beyond validation, no copies).
///
/// ```swift
/// let cache = try SymCache(contentsOf: "/var/lib/vigil/symcaches/82D13D98-….symcache")
/// let frames = cache.lookup(relativeAddress: 0x4a10, isReturnAddress: true)  // innermost first
/// ```
///
/// Opening validates every table once (O(size), a few milliseconds for tens of megabytes) so
/// that lookups never trap on a corrupt file. Lookups are O(log ranges + frames) and
/// thread-safe; demangled names are computed on first use and remembered (a lock guards that
/// memo). Keep the cache open for as many lookups as possible: that is what it is built for.
public final class SymCache: @unchecked Sendable {
    /// The format version this reader writes and reads.
    public static let formatVersion = Int(SymCacheFormat.version)

    /// The image's architecture (`arm64`, `x86_64`).
    public let arch: String
    /// The image's UUID or build id, when the object file had one.
    public let id: DebugIdentifier?
    /// The image's vmaddr the addresses are relative to (`__TEXT` vmaddr, lowest `PT_LOAD`).
    public let imageVMAddress: UInt64
    /// How many address ranges, distinct locations, functions and files the cache holds.
    public let rangeCount: Int
    public let locationCount: Int
    public let functionCount: Int
    public let fileCount: Int
    /// The cache's size in bytes.
    public var byteCount: Int { storage.bytes.count }
    /// Whether the cache was built from DWARF (lines and inline frames) rather than only a
    /// symbol table (function names without lines).
    public let hasLineInformation: Bool

    let storage: ByteStorage
    private let base: UnsafeRawPointer
    private let addressWidth: Int
    private let locationIndexWidth: Int
    private let functionWidth: Int
    private let fileWidth: Int
    private let lineWidth: Int
    private let parentWidth: Int
    private let locationSize: Int
    private let rangeStartsOffset: Int
    private let rangeLocationsOffset: Int
    private let locationsOffset: Int
    private let functionsOffset: Int
    private let filesOffset: Int
    private let stringsOffset: Int
    private let stringsSize: Int

    private let memoLock = NSLock()
    private var functionNames: [Int: FunctionNames] = [:]
    private var filePaths: [Int: String] = [:]

    /// The three spellings of a function name, computed once per function.
    struct FunctionNames {
        var raw: String
        var demangled: String
        var simplified: String
    }

    /// Opens the SymCache bytes in `data` (copied once into storage of its own).
    public convenience init(data: Data) throws(SymbolsError) {
        try self.init(storage: ByteStorage(copying: data), path: nil)
    }

    /// Maps the SymCache at `path` read-only; lookups read the mapping in place.
    public convenience init(contentsOf path: String) throws(SymbolsError) {
        try self.init(storage: ByteStorage(mappingFile: path), path: path)
    }

    init(storage: ByteStorage, path: String?) throws(SymbolsError) {
        self.storage = storage
        let bytes = storage.bytes
        typealias F = SymCacheFormat.Field
        func fail(_ kind: SymbolsError.Kind, _ message: String, at offset: Int) -> SymbolsError {
            SymbolsError(kind, message, fileOffset: UInt64(offset), path: path)
        }
        guard bytes.count >= SymCacheFormat.headerSize, let start = bytes.baseAddress else {
            throw fail(.truncated, "a SymCache needs a \(SymCacheFormat.headerSize)-byte header; the file has \(bytes.count) bytes", at: 0)
        }
        guard Array(bytes[0..<4]) == SymCacheFormat.magic else {
            throw fail(.badMagic, "not a Vigil SymCache (magic \(Array(bytes[0..<4])))", at: 0)
        }
        func field(_ offset: Int, _ width: Int) -> UInt64 { SymCacheFormat.load(start, offset, width: width) }
        let marker = UInt16(field(F.endian, 2))
        guard marker == SymCacheFormat.endianMarker else {
            throw fail(.unsupported, marker == SymCacheFormat.endianMarker.byteSwapped ? "SymCache written with the other byte order"
                                                                                        : "bad endian marker 0x\(String(marker, radix: 16))", at: F.endian)
        }
        let version = UInt16(field(F.version, 2))
        guard version == SymCacheFormat.version else {
            throw fail(.unsupported, "SymCache format version \(version); this reader reads version \(SymCacheFormat.version)", at: F.version)
        }
        guard field(F.headerSize, 4) == UInt64(SymCacheFormat.headerSize) else {
            throw fail(.malformed, "SymCache header size \(field(F.headerSize, 4))", at: F.headerSize)
        }
        guard field(F.fileSize, 8) == UInt64(bytes.count) else {
            throw fail(.truncated, "SymCache declares \(field(F.fileSize, 8)) bytes; the file has \(bytes.count)", at: F.fileSize)
        }
        base = start
        hasLineInformation = field(F.flags, 4) & 1 != 0
        imageVMAddress = field(F.imageVMAddress, 8)
        addressWidth = Int(field(F.addressWidth, 1))
        locationIndexWidth = Int(field(F.locationIndexWidth, 1))
        functionWidth = Int(field(F.functionWidth, 1))
        fileWidth = Int(field(F.fileWidth, 1))
        lineWidth = Int(field(F.lineWidth, 1))
        parentWidth = Int(field(F.parentWidth, 1))
        guard addressWidth == 4 || addressWidth == 8,
              [locationIndexWidth, functionWidth, fileWidth, lineWidth, parentWidth].allSatisfy({ (1...4).contains($0) }) else {
            throw fail(.malformed, "SymCache field widths out of range", at: F.addressWidth)
        }
        locationSize = functionWidth + fileWidth + lineWidth + parentWidth
        rangeCount = Int(field(F.rangeCount, 4))
        locationCount = Int(field(F.locationCount, 4))
        functionCount = Int(field(F.functionCount, 4))
        fileCount = Int(field(F.fileCount, 4))
        stringsSize = Int(field(F.stringsSize, 4))
        rangeStartsOffset = Int(field(F.rangeStartsOffset, 4))
        rangeLocationsOffset = Int(field(F.rangeLocationsOffset, 4))
        locationsOffset = Int(field(F.locationsOffset, 4))
        functionsOffset = Int(field(F.functionsOffset, 4))
        filesOffset = Int(field(F.filesOffset, 4))
        stringsOffset = Int(field(F.stringsOffset, 4))

        let tables: [(String, Int, Int, Int)] = [
            ("range starts", F.rangeStartsOffset, rangeStartsOffset, rangeCount * addressWidth),
            ("range locations", F.rangeLocationsOffset, rangeLocationsOffset, rangeCount * locationIndexWidth),
            ("locations", F.locationsOffset, locationsOffset, locationCount * locationSize),
            ("functions", F.functionsOffset, functionsOffset, functionCount * SymCacheFormat.functionRecordSize),
            ("files", F.filesOffset, filesOffset, fileCount * SymCacheFormat.fileRecordSize),
            ("strings", F.stringsOffset, stringsOffset, stringsSize),
        ]
        for (name, field, offset, size) in tables {
            guard offset >= SymCacheFormat.headerSize, offset <= bytes.count, size <= bytes.count - offset else {
                throw fail(.outOfBounds, "SymCache \(name) table (\(size) bytes at \(offset)) is outside the \(bytes.count)-byte file", at: field)
            }
        }

        let archOffset = Int(field(F.archOffset, 4)), archLength = Int(field(F.archLength, 4))
        guard archOffset <= stringsSize, archLength <= stringsSize - archOffset else {
            throw fail(.outOfBounds, "SymCache arch name is outside the string table", at: F.archOffset)
        }
        arch = String(decoding: UnsafeRawBufferPointer(start: start + stringsOffset + archOffset, count: archLength), as: UTF8.self)
        let idKind = field(F.idKind, 1), idLength = Int(field(F.idLength, 1))
        if idKind == 0 {
            id = nil
        } else {
            guard idLength <= SymCacheFormat.maximumIDLength,
                  let identifier = DebugIdentifier(kind: idKind == 1 ? .uuid : .buildID,
                                                   bytes: Array(UnsafeRawBufferPointer(start: start + F.id, count: idLength))) else {
                throw fail(.malformed, "SymCache id of kind \(idKind) and length \(idLength)", at: F.idKind)
            }
            id = identifier
        }
        try validate(fail)
    }

    /// Checks every record so that lookups can read without further checks.
    private func validate(_ fail: (SymbolsError.Kind, String, Int) -> SymbolsError) throws(SymbolsError) {
        var previous: UInt64?
        for index in 0..<rangeCount {
            let start = SymCacheFormat.load(base, rangeStartsOffset + index * addressWidth, width: addressWidth)
            if let previous, start <= previous {
                throw fail(.malformed, "SymCache range \(index) starts at 0x\(String(start, radix: 16)), not after the previous range", rangeStartsOffset + index * addressWidth)
            }
            previous = start
            let location = SymCacheFormat.load(base, rangeLocationsOffset + index * locationIndexWidth, width: locationIndexWidth)
            guard location <= UInt64(locationCount) else {
                throw fail(.outOfBounds, "SymCache range \(index) names location \(location), the cache has \(locationCount)", rangeLocationsOffset + index * locationIndexWidth)
            }
        }
        for index in 0..<locationCount {
            let record = locationsOffset + index * locationSize
            let function = SymCacheFormat.load(base, record, width: functionWidth)
            let file = SymCacheFormat.load(base, record + functionWidth, width: fileWidth)
            let parent = SymCacheFormat.load(base, record + functionWidth + fileWidth + lineWidth, width: parentWidth)
            guard function <= UInt64(functionCount), file <= UInt64(fileCount), parent <= UInt64(index) else {
                throw fail(.malformed, "SymCache location \(index) refers to function \(function), file \(file) or parent \(parent) that does not exist or is not earlier", record)
            }
        }
        for index in 0..<functionCount {
            let record = functionsOffset + index * SymCacheFormat.functionRecordSize
            let offset = SymCacheFormat.load(base, record, width: 4), length = SymCacheFormat.load(base, record + 4, width: 4)
            guard offset <= UInt64(stringsSize), length <= UInt64(stringsSize) - offset else {
                throw fail(.outOfBounds, "SymCache function \(index) name is outside the string table", record)
            }
        }
        for index in 0..<fileCount {
            let record = filesOffset + index * SymCacheFormat.fileRecordSize
            let offset = SymCacheFormat.load(base, record, width: 4), length = SymCacheFormat.load(base, record + 4, width: 4)
            guard offset <= UInt64(stringsSize), length <= UInt64(stringsSize) - offset else {
                throw fail(.outOfBounds, "SymCache file \(index) path is outside the string table", record)
            }
        }
    }

    // MARK: Raw access (validated at open)

    /// The innermost location (0-based) for `relativeAddress`, or nil.
    func innermostLocation(_ relativeAddress: UInt64) -> Int? {
        var low = 0, high = rangeCount
        while low < high { // first range starting after the address
            let middle = (low + high) >> 1
            if SymCacheFormat.load(base, rangeStartsOffset + middle * addressWidth, width: addressWidth) <= relativeAddress {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low > 0 else { return nil }
        let value = SymCacheFormat.load(base, rangeLocationsOffset + (low - 1) * locationIndexWidth, width: locationIndexWidth)
        return value == 0 ? nil : Int(value - 1)
    }

    /// A location's fields: 1 + function, 1 + file, line, 1 + parent (0: none).
    @inline(__always)
    func locationFields(_ index: Int) -> (function: Int, file: Int, line: UInt32, parent: Int) {
        let record = locationsOffset + index * locationSize
        let function = SymCacheFormat.load(base, record, width: functionWidth)
        let file = SymCacheFormat.load(base, record + functionWidth, width: fileWidth)
        let line = SymCacheFormat.load(base, record + functionWidth + fileWidth, width: lineWidth)
        let parent = SymCacheFormat.load(base, record + functionWidth + fileWidth + lineWidth, width: parentWidth)
        return (Int(function), Int(file), UInt32(truncatingIfNeeded: line), Int(parent))
    }

    /// The raw name bytes and entry of function `index` (0-based).
    func functionRecord(_ index: Int) -> (name: UnsafeRawBufferPointer, entry: UInt64?) {
        let record = functionsOffset + index * SymCacheFormat.functionRecordSize
        let offset = Int(SymCacheFormat.load(base, record, width: 4))
        let length = Int(SymCacheFormat.load(base, record + 4, width: 4))
        let entry = SymCacheFormat.load(base, record + 8, width: 4)
        return (UnsafeRawBufferPointer(start: base + stringsOffset + offset, count: length),
                entry == UInt64(SymCacheFormat.unknownEntry) ? nil : entry)
    }

    /// The path bytes of file `index` (0-based).
    func filePathBytes(_ index: Int) -> UnsafeRawBufferPointer {
        let record = filesOffset + index * SymCacheFormat.fileRecordSize
        let offset = Int(SymCacheFormat.load(base, record, width: 4))
        let length = Int(SymCacheFormat.load(base, record + 4, width: 4))
        return UnsafeRawBufferPointer(start: base + stringsOffset + offset, count: length)
    }

    /// The memoized names of function `index` (0-based).
    func names(ofFunction index: Int) -> FunctionNames {
        memoLock.lock()
        if let cached = functionNames[index] { memoLock.unlock(); return cached }
        memoLock.unlock()
        let raw = String(decoding: functionRecord(index).name, as: UTF8.self)
        let demangled = Demangler.demangle(raw)
        let names = FunctionNames(raw: raw, demangled: demangled, simplified: Demangler.simplify(demangled, mangled: raw))
        memoLock.lock()
        functionNames[index] = names
        memoLock.unlock()
        return names
    }

    /// The memoized path of file `index` (0-based).
    func path(ofFile index: Int) -> String {
        memoLock.lock()
        if let cached = filePaths[index] { memoLock.unlock(); return cached }
        memoLock.unlock()
        let path = String(decoding: filePathBytes(index), as: UTF8.self)
        memoLock.lock()
        filePaths[index] = path
        memoLock.unlock()
        return path
    }
}
