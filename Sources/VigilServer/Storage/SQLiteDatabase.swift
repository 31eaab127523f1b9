import Foundation

/// An SQLite database file: one writer connection behind a lock (SQLite allows one writer at a
/// time, and queueing in-process is cheaper than busy-waiting on the file lock) and a pool of
/// reader connections that WAL mode lets run beside the writer.
///
/// Checkpoints (copying the WAL into the database file) run on a background thread every
/// `checkpointSeconds`; the automatic checkpoint stays on at a large size as a backstop.
///
/// With `synchronous=NORMAL` a commit does not wait for the disk, with one exception: the
/// commit that restarts the WAL after a complete checkpoint syncs the new WAL header, and that
/// `fdatasync` writes back every WAL page dirtied since the file was last synced. Under load the
/// WAL grows by tens of MB a second, so that one commit stalled for 50–200 ms after each
/// checkpoint, and every request queued behind it. The same background thread therefore also
/// syncs the WAL every `walSyncSeconds`, which keeps what the restart's sync has to write small.
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
    ///
    /// `checkpointSeconds` ≤ 0 leaves checkpoints to SQLite's automatic one (and syncs nothing
    /// in the background); `walSyncSeconds` ≤ 0 turns off only the background WAL sync.
    public init(path: String, readers: Int = 4, checkpointSeconds: Double = 1, walSyncSeconds: Double = 0.1) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.path = path
        writer = try SQLiteConnection(path: path)
        // The background thread checkpoints; the automatic checkpoint (which runs inside a commit)
        // is only a backstop for when it falls behind, so its threshold sits well above the tens
        // of MB a second of WAL that sustained ingest writes. A restarted WAL keeps its blocks
        // (rewriting allocated blocks is what makes the restart's sync cheap) up to 512 MB, above
        // the backstop's 100,000 pages (~410 MB): under sustained load the WAL reaches that size
        // between restarts, and truncating it on each restart (a 40 ms `ftruncate` inside the
        // commit, then the blocks allocated again) lengthened every restart's stall.
        try writer.executeScript("PRAGMA wal_autocheckpoint=100000; PRAGMA journal_size_limit=536870912;")
        // Readers map the file (up to SQLite's build limit, 2 GB on Debian) instead of copying
        // each page they visit out of the kernel's cache into their own: a filtered dashboard
        // view visits tens of thousands of pages, and `perf` put a quarter of such a page's CPU
        // in those copies. Writes still go through the WAL.
        self.readers = ConnectionPool(capacity: readers) {
            let reader = try SQLiteConnection(path: path)
            try reader.executeScript("PRAGMA mmap_size=\(Self.readerMapBytes);")
            return reader
        }
        if checkpointSeconds > 0 { startCheckpointer(every: checkpointSeconds, walSyncEvery: walSyncSeconds) }
    }

    private func startCheckpointer(every seconds: Double, walSyncEvery walSeconds: Double) {
        let path = self.path
        let tick = walSeconds > 0 ? min(walSeconds, seconds) : seconds
        checkpointerRunning = true
        let thread = Thread { [self] in
            let connection = try? SQLiteConnection(path: path)
            var wal = WALFile(path: path + "-wal")
            var nextCheckpoint = Date().addingTimeInterval(seconds)
            checkpointer.lock()
            while !closed {
                _ = checkpointer.wait(until: Date().addingTimeInterval(tick))
                if closed { break }
                checkpointer.unlock()
                if walSeconds > 0 { wal.sync() }
                if Date() >= nextCheckpoint {
                    nextCheckpoint = Date().addingTimeInterval(seconds)
                    // PASSIVE never blocks the writer or readers; what it cannot copy now waits.
                    _ = try? connection?.executeScript("PRAGMA wal_checkpoint(PASSIVE);")
                }
                checkpointer.lock()
            }
            wal.close()
            checkpointerRunning = false
            checkpointer.broadcast()
            checkpointer.unlock()
        }
        thread.name = "vigil-sqlite-checkpoint"
        thread.start()
    }

    /// How much of the file each reader maps (SQLite lowers it to its build's limit).
    static let readerMapBytes: Int64 = 1 << 34

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

/// The WAL file as seen by the background sync: a read-only descriptor of its own, opened once
/// the file exists and again if the file was replaced (SQLite deletes it when the last
/// connection closes). `fdatasync` writes back the file's dirty pages whichever descriptor
/// wrote them.
struct WALFile {
    let path: String
    private var descriptor: Int32 = -1

    /// The inode synced, or nil while the file does not exist; for tests.
    var inode: UInt64? {
        guard descriptor >= 0 else { return nil }
        var status = stat()
        return fstat(descriptor, &status) == 0 ? UInt64(status.st_ino) : nil
    }

    init(path: String) {
        self.path = path
    }

    mutating func sync() {
        if descriptor >= 0 {
            var status = stat()
            if fstat(descriptor, &status) != 0 || status.st_nlink == 0 { close() }
        }
        if descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
        if descriptor >= 0 { _ = fdatasync(descriptor) }
    }

    mutating func close() {
        if descriptor >= 0 { _ = Foundation.close(descriptor) }
        descriptor = -1
    }
}
