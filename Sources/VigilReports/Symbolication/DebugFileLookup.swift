import Foundation
import VigilSymbols

/// A ``SymbolLookup`` over dSYM bundles, Mach-O and ELF debug files and SymCache files,
/// through `VigilSymbols`.
///
/// Paths may be files or directories (searched for `.dSYM` bundles, `.symcache` files and
/// object files, to a bounded depth). A SymCache is built in memory for each slice whose
/// identifier is wanted (all when `wanted` is nil); files that cannot be read are listed in
/// ``issues`` instead of failing the whole set. Immutable after `init`, `Sendable`.
public struct DebugFileLookup: SymbolLookup {
    /// A file that could not be used, and why.
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Caches by identifier (``ImageUUID`` canonical form / lowercase build id).
    private let caches: [String: SymCache]
    /// Files that could not be read or held no usable slice.
    public let issues: [Issue]

    /// Identifiers with symbols, sorted.
    public var identifiers: [String] { caches.keys.sorted() }

    /// Opens `paths`. `wanted` limits SymCache building to these identifiers (a report's
    /// image UUIDs), which saves building caches for slices no frame needs.
    public init(paths: [String], wanted: Set<String>? = nil) {
        var caches: [String: SymCache] = [:]
        var issues: [Issue] = []
        for path in Self.expand(paths, issues: &issues) {
            if path.hasSuffix(".symcache") {
                do {
                    let cache = try SymCache(contentsOf: path)
                    guard let id = cache.id.flatMap({ ImageUUID.normalized($0.description) }) else {
                        issues.append(Issue(path: path, message: "the SymCache has no image identifier"))
                        continue
                    }
                    if wanted?.contains(id) ?? true, caches[id] == nil { caches[id] = cache }
                } catch {
                    issues.append(Issue(path: path, message: String(describing: error)))
                }
                continue
            }
            // A dSYM bundle may hold several Mach-O files (one per architecture, or stale ones):
            // each is read and its slices are kept by UUID; stray non-object files are ignored.
            var isDirectory: ObjCBool = false
            var objectPaths = [path]
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                do {
                    objectPaths = try ObjectFile.debugFiles(inBundle: path)
                } catch {
                    issues.append(Issue(path: path, message: String(describing: error)))
                    continue
                }
                if objectPaths.isEmpty { issues.append(Issue(path: path, message: "the dSYM bundle has no DWARF file")) }
            }
            for objectPath in objectPaths {
            do {
                let file = try ObjectFile(path: objectPath)
                for slice in file.slices {
                    guard let id = slice.id.flatMap({ ImageUUID.normalized($0.description) }) else { continue }
                    guard wanted?.contains(id) ?? true, caches[id] == nil else { continue }
                    do {
                        caches[id] = try SymCache(building: slice)
                    } catch {
                        issues.append(Issue(path: path, message: "\(slice.arch): \(error)"))
                    }
                }
            } catch {
                issues.append(Issue(path: objectPath, message: String(describing: error)))
            }
            }
        }
        self.caches = caches
        self.issues = issues
    }

    public func hasSymbols(forImage uuid: String, arch: String?) -> Bool {
        caches[uuid] != nil
    }

    public func symbolicate(image uuid: String, arch: String?, imageOffset: UInt64, isReturnAddress: Bool) -> [SymbolicatedLocation] {
        guard let cache = caches[uuid] else { return [] }
        return cache.lookup(relativeAddress: imageOffset, isReturnAddress: isReturnAddress).compactMap { frame in
            guard let name = Self.displayName(frame) else { return nil }
            return SymbolicatedLocation(function: name, start: frame.functionAddress, file: frame.file,
                                        line: Int(frame.line))
        }
    }

    /// Names as Apple's symbolicator writes them: Swift in Xcode's short form
    /// (`Cart.add(_:)`), C++ and C demangled in full.
    static func displayName(_ frame: SymbolicatedFrame) -> String? {
        guard let raw = frame.rawFunction else { return frame.function }
        if Demangler.language(of: raw) == .swift { return frame.simplifiedFunction ?? frame.function ?? raw }
        return frame.function ?? raw
    }

    /// Files to open: `.dSYM` bundles and files as given; directories searched (8 levels,
    /// 10,000 entries) for bundles, SymCaches and other files.
    static func expand(_ paths: [String], issues: inout [Issue]) -> [String] {
        var result: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                issues.append(Issue(path: path, message: "no such file or directory"))
                continue
            }
            if !isDirectory.boolValue || path.hasSuffix(".dSYM") || path.hasSuffix(".dSYM/") {
                result.append(path)
                continue
            }
            var pending = [(path, 0)]
            var visited = 0
            while let (directory, depth) = pending.popLast(), visited < 10_000 {
                guard let entries = try? manager.contentsOfDirectory(atPath: directory) else { continue }
                for entry in entries.sorted() where !entry.hasPrefix(".") {
                    visited += 1
                    let full = (directory as NSString).appendingPathComponent(entry)
                    var entryIsDirectory: ObjCBool = false
                    guard manager.fileExists(atPath: full, isDirectory: &entryIsDirectory) else { continue }
                    if entry.hasSuffix(".dSYM") {
                        result.append(full)
                    } else if entryIsDirectory.boolValue {
                        if depth < 8 { pending.append((full, depth + 1)) }
                    } else {
                        result.append(full)
                    }
                }
            }
        }
        return result
    }
}
