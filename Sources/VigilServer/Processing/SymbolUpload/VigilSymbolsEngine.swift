import Foundation
import VigilSymbols

/// The symbolication engine backed by `VigilSymbols`: uploads (a bare Mach-O, fat or ELF file,
/// a dSYM's DWARF file, or a zip, tar or tar.gz of any of them — a zipped `.dSYM` bundle
/// included) become one SymCache per slice; SymCaches open without copying.
public struct VigilSymbolsEngine: SymbolicationEngine {
    /// Where archives are unpacked while an upload is read.
    public var scratchDirectory: String

    /// An engine unpacking archives under `scratchDirectory`.
    public init(scratchDirectory: String = NSTemporaryDirectory()) {
        self.scratchDirectory = scratchDirectory
    }

    public func slices(ofUpload file: URL) throws -> [SymbolSlice] {
        let upload = try UploadFile(path: file.path)
        let header = try upload.read(at: 0, count: Int(min(upload.size, 512)))
        var candidates: [(name: String, path: String)] = []
        var extraction: ExtractionDirectory?
        var gunzipped: URL?
        defer { if let gunzipped { try? FileManager.default.removeItem(at: gunzipped) } }
        if header.count >= 2, header[0] == 0x1F, header[1] == 0x8B {
            // A .tar.gz: inflate to a scratch file, then read it as tar.
            let target = URL(fileURLWithPath: scratchDirectory).appendingPathComponent("upload-\(UUID().uuidString).tar")
            gunzipped = target
            _ = FileManager.default.createFile(atPath: target.path, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: target.path) else { throw ArchiveError(offset: 0, message: "cannot unpack") }
            let inflater = try GzipInflater(limit: 8 << 30)
            try upload.stream(at: 0, count: upload.size) { piece in
                try inflater.feed(piece) { try handle.write(contentsOf: Data($0)) }
            }
            try inflater.finish()
            try handle.close()
            let directory = try ExtractionDirectory(parent: scratchDirectory)
            try TarReader.extract(try UploadFile(path: target.path), into: directory)
            extraction = directory
        } else if ZipReader.looksLikeZip(header) {
            let directory = try ExtractionDirectory(parent: scratchDirectory)
            try ZipReader.extract(upload, into: directory)
            extraction = directory
        } else if TarReader.looksLikeTar(header) {
            let directory = try ExtractionDirectory(parent: scratchDirectory)
            try TarReader.extract(upload, into: directory)
            extraction = directory
        } else {
            candidates = [(file.lastPathComponent, file.path)]
        }
        if let extraction { candidates = extraction.members.map { ($0.name, $0.url.path) } }
        return try withExtendedLifetime(extraction) { try convert(candidates, archived: extraction != nil) }
    }

    /// SymCaches for every slice with an id; when two files carry one id (a binary and its
    /// dSYM), the one with DWARF wins.
    private func convert(_ candidates: [(name: String, path: String)], archived: Bool) throws -> [SymbolSlice] {
        var best: [String: (slice: SymbolSlice, dwarf: Bool)] = [:]
        var lastError: SymbolsError?
        for candidate in candidates {
            let object: ObjectFile
            do {
                object = try ObjectFile(path: candidate.path)
            } catch {
                // Inside an archive most members (plists, resources) are not object files.
                lastError = error
                continue
            }
            for slice in object.slices {
                guard let id = slice.id, slice.hasDWARF || slice.hasSymbolTable else { continue }
                let output = try SymCacheWriter().write(slice)
                let name = slice.imageName ?? (candidate.name.split(separator: "/").last.map(String.init) ?? candidate.name)
                let converted = SymbolSlice(debugID: id.description, arch: slice.arch,
                                            kind: slice.kind == .debugCompanion ? "dsym" : "\(slice.format.rawValue) \(slice.kind.rawValue)",
                                            name: name, symcache: output.data)
                let key = converted.debugID + "/" + converted.arch
                if let existing = best[key], existing.dwarf || !slice.hasDWARF { continue }
                best[key] = (converted, slice.hasDWARF)
            }
        }
        if best.isEmpty, !archived, let lastError { throw lastError }
        return best.values.map(\.slice).sorted { ($0.debugID, $0.arch) < ($1.debugID, $1.arch) }
    }

    public func table(fromSymCache data: Data) throws -> any SymbolTable {
        SymCacheTable(cache: try SymCache(data: data))
    }
}

/// A `VigilSymbols.SymCache` answering the server's lookups.
struct SymCacheTable: SymbolTable {
    let cache: SymCache

    func locations(at offset: UInt64, isReturnAddress: Bool) -> [SymbolLocation] {
        cache.lookup(relativeAddress: offset, isReturnAddress: isReturnAddress).compactMap { frame in
            guard let name = frame.simplifiedFunction ?? frame.function ?? frame.rawFunction else { return nil }
            return SymbolLocation(function: name, file: frame.file, line: frame.line == 0 ? nil : Int(frame.line))
        }
    }
}
