import Foundation

/// Positioned reads from an uploaded file, with typed errors naming the offset.
///
/// Archive readers read headers through this instead of loading a 2 GB upload into memory.
final class UploadFile {
    let path: String
    let size: UInt64
    private let handle: FileHandle

    init(path: String) throws {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ArchiveError(offset: 0, message: "cannot open the upload")
        }
        self.handle = handle
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        size = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
    }

    deinit { try? handle.close() }

    /// Exactly `count` bytes at `offset`.
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw ArchiveError(offset: offset, message: "reading \(count) bytes runs past the end of the \(size)-byte upload")
        }
        try handle.seek(toOffset: offset)
        let data = try handle.read(upToCount: count) ?? Data()
        guard data.count == count else { throw ArchiveError(offset: offset, message: "short read") }
        return [UInt8](data)
    }

    /// Copies `count` bytes at `offset` to `sink` in pieces of at most 1 MiB.
    func stream(at offset: UInt64, count: UInt64, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard offset <= size, count <= size - offset else {
            throw ArchiveError(offset: offset, message: "an entry of \(count) bytes runs past the end of the upload")
        }
        try handle.seek(toOffset: offset)
        var left = count
        while left > 0 {
            let piece = Int(min(left, 1 << 20))
            guard let data = try handle.read(upToCount: piece), data.count == piece else {
                throw ArchiveError(offset: offset + (count - left), message: "short read")
            }
            try data.withUnsafeBytes { try sink($0) }
            left -= UInt64(piece)
        }
    }
}

/// An archive (zip, tar, gzip) that cannot be read, with the byte offset where reading stopped.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// Byte offset where reading stopped.
    public var offset: UInt64
    /// What was wrong.
    public var message: String
    public var description: String { "\(message) (at byte \(offset))" }
}

/// Where extracted archive members go: numbered files in one directory (never the member's
/// own path, so `../` in an archive cannot escape), with bounds on count and total size.
final class ExtractionDirectory {
    let url: URL
    let maxEntries: Int
    let maxTotalBytes: UInt64
    private(set) var members: [(name: String, url: URL)] = []
    private(set) var totalBytes: UInt64 = 0

    init(parent: String, maxEntries: Int = 20_000, maxTotalBytes: UInt64 = 8 << 30) throws {
        url = URL(fileURLWithPath: parent).appendingPathComponent("extract-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        self.maxEntries = maxEntries
        self.maxTotalBytes = maxTotalBytes
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes one member whose bytes `fill` produces; `name` is kept for display only.
    func add(name: String, fill: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        guard members.count < maxEntries else {
            throw ArchiveError(offset: 0, message: "more than \(maxEntries) files in the archive")
        }
        let target = url.appendingPathComponent(String(members.count))
        _ = FileManager.default.createFile(atPath: target.path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: target.path) else {
            throw ArchiveError(offset: 0, message: "cannot write an extracted file")
        }
        defer { try? handle.close() }
        try fill { bytes in
            totalBytes += UInt64(bytes.count)
            guard totalBytes <= maxTotalBytes else {
                throw ArchiveError(offset: 0, message: "the archive unpacks to more than \(maxTotalBytes) bytes")
            }
            try handle.write(contentsOf: Data(bytes))
        }
        members.append((name, target))
    }
}
