import Foundation

/// An SQLite database file: one writer connection behind a lock (SQLite allows one writer at a
/// time, and queueing in-process is cheaper than busy-waiting on the file lock) and a pool of
/// reader connections that WAL mode lets run beside the writer.
///
/// Checkpoints (copying the WAL into the database file, the only step that waits for the disk)
/// run on a background thread every `checkpointSeconds`, so no request commits behind an
/// `fsync`; the automatic checkpoint stays on at a large size as a backstop.
public final class SQLiteDatabase: Database, @unchecked Sendable {
    /// The SQL dialect.
    public var dialect: SQLDialect { .sqlite }
    /// The database file.
    public let path: String
    private let writerLock = NSLock()
    private let writer: SQLiteConnection
    private let readers: ConnectionPool<SQLiteConnection>
    private let checkpointer = NSCondition()
    private var closed = false
    private var checkpointerRunning = false

    /// Opens or creates the file at `path` (its directory is created too).
    public init(path: String, readers: Int = 4, checkpointSeconds: Double = 1) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.path = path
        writer = try SQLiteConnection(path: path)
        try writer.executeScript("PRAGMA wal_autocheckpoint=20000;")
        self.readers = ConnectionPool(capacity: readers) { try SQLiteConnection(path: path) }
        if checkpointSeconds > 0 { startCheckpointer(every: checkpointSeconds) }
    }

    private func startCheckpointer(every seconds: Double) {
        let path = self.path
        checkpointerRunning = true
        let thread = Thread { [self] in
            let connection = try? SQLiteConnection(path: path)
            checkpointer.lock()
            while !closed {
                _ = checkpointer.wait(until: Date().addingTimeInterval(seconds))
                if closed { break }
                checkpointer.unlock()
                // PASSIVE never blocks the writer or readers; what it cannot copy now waits.
                _ = try? connection?.executeScript("PRAGMA wal_checkpoint(PASSIVE);")
                checkpointer.lock()
            }
            checkpointerRunning = false
            checkpointer.broadcast()
            checkpointer.unlock()
        }
        thread.name = "vigil-sqlite-checkpoint"
        thread.start()
    }

    /// A printable description without secrets.
    public var displayName: String { "sqlite:\(path)" }

    @discardableResult
    public func write<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        var attempt = 0
        while true {
            attempt += 1
            try writer.execute(dialect.beginWrite)
            do {
                let value = try body(writer)
                try writer.execute("COMMIT")
                return value
            } catch {
                _ = try? writer.execute("ROLLBACK")
                if let failure = error as? DatabaseError, failure.isTransient, attempt < 5 { continue }
                throw error
            }
        }
    }

    public func read<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        try readers.with { connection in try body(connection) }
    }

    public func sizeInBytes() throws -> Int64 {
        var total: Int64 = 0
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix)
            total += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return total
    }

    public func close() {
        checkpointer.lock()
        closed = true
        checkpointer.broadcast()
        while checkpointerRunning { checkpointer.wait() }
        checkpointer.unlock()
        readers.close()
    }
}
