import Foundation

/// An object or debug file — thin Mach-O, fat (universal) Mach-O, or 64-bit ELF — opened from a
/// path (memory-mapped) or from bytes, listing its architecture slices.
///
/// ```swift
/// let file = try ObjectFile(path: "Shop.app.dSYM")       // a bundle resolves to its DWARF file
/// let slice = try file.slice(arch: "arm64")              // or file.slice(id: uuidFromReport)
/// let cache = try SymCache(data: SymCacheWriter().write(slice).data)
/// ```
///
/// Opening reads the headers and load commands only (cost proportional to their size, not to
/// the file's). Immutable and `Sendable`; the mapping lives as long as the file or any slice.
public final class ObjectFile: Sendable {
    /// The container kind of a file.
    public enum Container: String, Sendable {
        /// One Mach-O image.
        case machO = "Mach-O"
        /// A fat/universal file of Mach-O slices.
        case fat = "fat Mach-O"
        /// An ELF file.
        case elf = "ELF"
    }

    /// The path that was opened (for a dSYM bundle, the DWARF file inside it); `nil` for bytes.
    public let path: String?
    /// Thin Mach-O, fat Mach-O or ELF.
    public let container: Container
    /// The architecture slices, in file order (one for thin Mach-O and ELF).
    public let slices: [ObjectSlice]

    /// Opens `path` by mapping it read-only. A `.dSYM` bundle (or any directory with
    /// `Contents/Resources/DWARF/`) resolves to its DWARF file; a bundle with several DWARF files
    /// is an error listing them (open each with ``debugFiles(inBundle:)``).
    public convenience init(path: String) throws(SymbolsError) {
        let resolved = try ObjectFile.resolve(path)
        let storage = try ByteStorage(mappingFile: resolved)
        try self.init(storage: storage, path: resolved)
    }

    /// Reads a file's bytes (copied once into storage of its own). `name` is used as the image
    /// name in output and errors.
    public convenience init(data: Data, name: String? = nil) throws(SymbolsError) {
        try self.init(storage: ByteStorage(copying: data), path: name)
    }

    init(storage: ByteStorage, path: String?) throws(SymbolsError) {
        self.path = path
        let bytes = storage.bytes
        guard bytes.count >= 4 else {
            throw SymbolsError(.truncated, "a \(bytes.count)-byte file is too small to be an object file", fileOffset: 0, path: path)
        }
        let littleMagic = bytes.loadUnaligned(as: UInt32.self).littleEndian
        let bigMagic = UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self))
        do throws(SymbolsError) {
            if FatParser.isFat(bigEndianMagic: bigMagic) {
                container = .fat
                var slices: [ObjectSlice] = []
                for entry in try FatParser.entries(bytes) {
                    let parsed = try MachOParser.parse(bytes, sliceOffset: entry.offset, sliceSize: entry.size)
                    slices.append(ObjectSlice(parsed: parsed, storage: storage, path: path))
                }
                self.slices = slices
            } else if MachOParser.isMachO(magic: littleMagic) {
                container = .machO
                slices = [ObjectSlice(parsed: try MachOParser.parse(bytes, sliceOffset: 0, sliceSize: UInt64(bytes.count)),
                                      storage: storage, path: path)]
            } else if ELFParser.isELF(bytes) {
                container = .elf
                slices = [ObjectSlice(parsed: try ELFParser.parse(bytes), storage: storage, path: path)]
            } else {
                throw SymbolsError(.badMagic, "not a Mach-O, fat Mach-O or ELF file (magic 0x\(String(bigMagic, radix: 16)))", fileOffset: 0)
            }
        } catch {
            throw error.at(path: path)
        }
    }

    /// The slice for `arch` (`arm64`, `x86_64`, `aarch64`…); with `arch == nil`, the only slice.
    /// Throws `.architectureNotFound` naming the available architectures.
    public func slice(arch: String?) throws(SymbolsError) -> ObjectSlice {
        guard let arch else {
            if slices.count == 1 { return slices[0] }
            throw SymbolsError(.architectureNotFound,
                               "the file has \(slices.count) architectures (\(architectures.joined(separator: ", "))); choose one with --arch",
                               path: path)
        }
        if let match = slices.first(where: { Architecture.matches(arch, $0.arch) }) { return match }
        throw SymbolsError(.architectureNotFound,
                           "no \(arch) slice; the file has \(architectures.joined(separator: ", "))", path: path)
    }

    /// The slice whose UUID or build id is `id`, if any.
    public func slice(id: DebugIdentifier) -> ObjectSlice? {
        slices.first { $0.id == id }
    }

    /// The architecture names of the slices, in order.
    public var architectures: [String] { slices.map(\.arch) }

    /// The DWARF files of a dSYM bundle (`X.dSYM/Contents/Resources/DWARF/*`), sorted. Files that
    /// are not object files (a stray `.DS_Store`, a text note, a plist) are left out.
    public static func debugFiles(inBundle bundle: String) throws(SymbolsError) -> [String] {
        let directory = (bundle as NSString).appendingPathComponent("Contents/Resources/DWARF")
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw SymbolsError(.io, "not a dSYM bundle: no Contents/Resources/DWARF directory", path: bundle)
        }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { (directory as NSString).appendingPathComponent($0) }
            .filter(isObjectFile)
    }

    /// Whether the file at `path` starts like a Mach-O, fat Mach-O or ELF file.
    static func isObjectFile(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4), head.count == 4 else { return false }
        let big = head.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let little = UInt32(head[0]) | UInt32(head[1]) << 8 | UInt32(head[2]) << 16 | UInt32(head[3]) << 24
        return FatParser.isFat(bigEndianMagic: big) || MachOParser.isMachO(magic: little) || big == 0x7F45_4C46
    }

    /// Opens the debug file of a dSYM bundle (or the file at `path` itself) that describes the
    /// image with build UUID `id`, else the one with an `arch` slice, else the only one. A bundle
    /// may hold several Mach-O files (one per architecture, or stale ones): they are told apart
    /// by UUID and architecture.
    public static func open(path: String, id: DebugIdentifier?, arch: String?) throws(SymbolsError) -> ObjectFile {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SymbolsError(.io, "no such file", path: path)
        }
        guard isDirectory.boolValue else { return try ObjectFile(path: path) }
        let candidates = try debugFiles(inBundle: path)
        guard !candidates.isEmpty else { throw SymbolsError(.io, "the dSYM bundle has no DWARF file", path: path) }
        var opened: [ObjectFile] = []
        for candidate in candidates {
            guard let file = try? ObjectFile(path: candidate) else { continue }
            if let id, file.slice(id: id) != nil { return file }
            opened.append(file)
        }
        if id == nil, let arch, let match = opened.first(where: { $0.slices.contains { Architecture.matches(arch, $0.arch) } }) {
            return match
        }
        // One file: the caller's slice(arch:) or slice(id:) says what it lacks.
        if opened.count == 1 { return opened[0] }
        let wanted = [id.map { "UUID \($0)" }, arch].compactMap { $0 }.joined(separator: ", ")
        throw SymbolsError(.architectureNotFound,
                           "no DWARF file of the bundle matches \(wanted.isEmpty ? "(several files; give an architecture)" : wanted): "
                               + candidates.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "),
                           path: path)
    }

    /// The `.dSYM` bundle beside a binary, as Xcode puts it: `App.dSYM` next to `App`, or
    /// `App.app.dSYM` next to the `App.app` bundle the binary is in; nil when there is none.
    public static func dSYMBeside(binary path: String) -> String? {
        let manager = FileManager.default
        var candidates = [path + ".dSYM"]
        let components = (path as NSString).pathComponents
        if let appIndex = components.lastIndex(where: { $0.hasSuffix(".app") }) {
            let app = NSString.path(withComponents: Array(components[...appIndex]))
            candidates.append(app + ".dSYM")
        }
        return candidates.first { candidate in
            var isDirectory: ObjCBool = false
            return manager.fileExists(atPath: candidate, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    /// `path` itself, or the single DWARF file of the bundle it names.
    static func resolve(_ path: String) throws(SymbolsError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SymbolsError(.io, "no such file", path: path)
        }
        guard isDirectory.boolValue else { return path }
        let files = try debugFiles(inBundle: path)
        // Several files: ObjectFile.open(path:id:arch:) chooses by UUID or architecture.
        guard files.count == 1 else {
            throw SymbolsError(.io, files.isEmpty ? "the dSYM bundle has no DWARF file"
                                   : "the dSYM bundle has \(files.count) DWARF files: \(files.joined(separator: ", "))",
                               path: path)
        }
        return files[0]
    }
}
