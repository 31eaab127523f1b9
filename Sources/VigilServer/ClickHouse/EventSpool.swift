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
/// folder synced, so a crash leaves either the whole batch or nothing.
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
        let temporary = directory + "/" + String(format: "pending-%016llx", UInt64(bitPattern: batchID)) + ".tmp"
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

    /// Deletes a batch that is not to be published.
    public func discard(_ written: Unpublished) {
        unlink(written.path)
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

    /// Deletes `batch` once every shard has it.
    public func remove(_ batch: Batch) {
        unlink(batch.path)
    }
}
