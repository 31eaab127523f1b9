import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's durable queue of event batches on their way to ClickHouse: one file per
/// accepted batch, written and synced before the request is answered, deleted only once every
/// shard has confirmed its rows.
///
/// A file is `SEQUENCE-BATCHID.batch` (16 decimal digits, 16 hex digits): the sequence gives the
/// order, the batch id is written into every row so that a retried insert can be recognized. Its
/// lines are `EVENT_ID<TAB>JSON_ROW`. It is written under a `.tmp` name, synced, renamed and the
/// folder synced, so a crash leaves either the whole batch or nothing; `.tmp` files are deleted
/// at start.
///
/// Threading: ``append(_:batchID:)`` from any thread; reading and removing from one consumer.
public final class EventSpool: Sendable {
    /// One spooled batch.
    public struct Batch: Sendable, Hashable {
        /// Position in the queue: higher was accepted later.
        public var sequence: Int64
        /// The id written into its rows.
        public var batchID: Int64
        /// The file.
        public var path: String
    }

    /// The folder.
    public let directory: String
    private let nextSequence: Mutex<Int64>
    /// Files of delivered or dropped batches, renamed `spare-N.tmp` and rewritten for the next
    /// batches: creating a file per batch cost the kernel more than rewriting one (ext4 looks for
    /// a free inode past those deleted in the last seconds: under ingest, a twentieth of the
    /// server's CPU went to creating spool files).
    private let spares = Mutex<(files: [String], named: Int)>(([], 0))
    /// Most spare files kept.
    static let maximumSpares = 64

    /// Opens (creating it when missing) the spool at `directory`; sequences continue after the
    /// highest file found.
    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".tmp") {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
        let highest = try Self.list(directory).last?.sequence ?? 0
        nextSequence = Mutex(highest + 1)
    }

    /// The batches waiting, oldest first.
    public func pending() throws -> [Batch] { try Self.list(directory) }

    private static func list(_ directory: String) throws -> [Batch] {
        try FileManager.default.contentsOfDirectory(atPath: directory).compactMap { name -> Batch? in
            guard name.hasSuffix(".batch") else { return nil }
            let parts = name.dropLast(6).split(separator: "-")
            guard parts.count == 2, let sequence = Int64(parts[0]), let id = UInt64(parts[1], radix: 16) else { return nil }
            return Batch(sequence: sequence, batchID: Int64(bitPattern: id), path: directory + "/" + name)
        }.sorted { $0.sequence < $1.sequence }
    }

    /// Writes `lines` (each `EVENT_ID<TAB>JSON_ROW\n`) as a new batch, durably; returns it.
    ///
    /// Cost: one file write and two `fsync`s (the file, then the folder).
    public func append(_ lines: Data, batchID: Int64) throws -> Batch {
        try publish(try writeUnpublished(lines, batchID: batchID))
    }

    /// A batch written and synced under a temporary name, not yet in the queue: a crash drops
    /// it (the next start deletes `.tmp` files), ``publish(_:)`` makes it a batch,
    /// ``discard(_:)`` deletes it.
    public struct Unpublished: Sendable {
        /// The id written into its rows.
        public var batchID: Int64
        /// The temporary file.
        public var path: String
    }

    /// The first half of ``append(_:batchID:)``: writes and syncs `lines` under a temporary name.
    /// Safe to run while the caller's other work (the main database's commit) goes on; the
    /// batch is not in the queue until ``publish(_:)``. Cost: one file write and its `fsync`.
    public func writeUnpublished(_ lines: Data, batchID: Int64) throws -> Unpublished {
        let temporary = spares.withLock { $0.files.popLast() }
            ?? directory + "/" + String(format: "pending-%016llx", UInt64(bitPattern: batchID)) + ".tmp"
        do {
            try Self.writeSynced(temporary, lines)
        } catch {
            unlink(temporary)
            throw error
        }
        return Unpublished(batchID: batchID, path: temporary)
    }

    /// The second half: gives the batch the next sequence, renames it into the queue and syncs
    /// the folder (the rename is what makes it a batch after a crash). Callers publish one at a
    /// time when the order of their batches matters. Cost: a rename and one `fsync`.
    public func publish(_ written: Unpublished) throws -> Batch {
        let sequence = nextSequence.withLock { value -> Int64 in
            defer { value += 1 }
            return value
        }
        let final = directory + "/" + String(format: "%016lld-%016llx", sequence, UInt64(bitPattern: written.batchID)) + ".batch"
        guard rename(written.path, final) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(written.path)
            throw ClickHouseError.transport("spool: cannot rename \(written.path): \(reason)")
        }
        let folder = open(directory, O_RDONLY)
        if folder >= 0 { _ = fsync(folder); close(folder) }
        return Batch(sequence: sequence, batchID: written.batchID, path: final)
    }

    /// Drops a batch that is not to be published (its file is kept as a spare).
    public func discard(_ written: Unpublished) {
        recycle(written.path)
    }

    /// Keeps the file at `path` as a spare for a later batch, or deletes it when there are enough.
    private func recycle(_ path: String) {
        let spare: String? = spares.withLock { state in
            guard state.files.count < Self.maximumSpares else { return nil }
            state.named += 1
            return directory + "/spare-\(state.named).tmp"
        }
        guard let spare, rename(path, spare) == 0 else {
            unlink(path)
            return
        }
        spares.withLock { $0.files.append(spare) }
    }

    private static func writeSynced(_ path: String, _ data: Data) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw ClickHouseError.transport("spool: cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ClickHouseError.transport("spool: cannot write \(path): \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
        guard fsync(fd) == 0 else { throw ClickHouseError.transport("spool: cannot sync \(path): \(String(cString: strerror(errno)))") }
    }

    /// The rows of `batch`: each event id with its JSON row (newline included).
    public func rows(of batch: Batch) throws -> [(id: Substring, row: Data)] {
        let data = try Data(contentsOf: URL(fileURLWithPath: batch.path))
        var rows: [(id: Substring, row: Data)] = []
        // One pass over the bytes in place, lines and tabs found with memchr: `Data.split` paid
        // an exclusivity check per byte, a quarter of the server's CPU under ingest.
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let count = buffer.count
            var start = 0
            while start < count {
                var end = count
                if let newline = memchr(base + start, 0x0A, count - start) {
                    end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                }
                // Empty lines and lines without an id are skipped.
                if end > start, let found = memchr(base + start, 0x09, end - start) {
                    let tab = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    var row = Data(capacity: end - tab)
                    row.append(base + tab + 1, count: end - tab - 1)
                    row.append(0x0A)
                    let id = String(decoding: UnsafeBufferPointer(start: base + start, count: tab - start), as: UTF8.self)
                    rows.append((Substring(id), row))
                }
                start = end + 1
            }
        }
        return rows
    }

    /// Takes `batch` out of the queue once every shard has it (its file is kept as a spare; a
    /// crash before the rename is on disk leaves the batch to be checked on every shard again).
    public func remove(_ batch: Batch) {
        recycle(batch.path)
    }
}
