import Foundation
import VigilCore

/// An ``EventSink`` that appends every event to a file as one JSON line (schema v1, the wire
/// form of ``EventJSON``), flushed per event.
///
/// The SDK's sink until the durable on-device store replaces it, and the `--out FILE` sink of
/// `vigil-sample`. Bounded: once the file reaches `maxBytes`, further events are dropped and
/// counted in ``dropped`` (losing telemetry is acceptable, filling the disk is not). An event
/// that cannot be encoded or written is dropped and counted too; nothing is thrown into the
/// caller. Thread-safe (a lock around each append); costs one `write` per event.
public final class JSONLinesFileSink: EventSink, @unchecked Sendable {
    /// The file events are appended to.
    public let url: URL
    /// Largest size the file may reach, in bytes.
    public let maxBytes: UInt64
    private let lock = NSLock()
    private var handle: FileHandle?
    private var size: UInt64 = 0
    private var droppedCount = 0
    private var writtenCount = 0

    /// Why the sink could not open its file.
    public struct OpenError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot open \(path) for events: \(reason)" }
    }

    /// Opens (creating it and its directory if needed) `url` for appending; with `truncate` an
    /// existing file is emptied first.
    public init(url: URL, maxBytes: UInt64 = 64 * 1024 * 1024, truncate: Bool = false) throws(OpenError) {
        self.url = url
        self.maxBytes = maxBytes
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw OpenError(path: url.path, reason: "cannot create its directory: \(error)")
        }
        if truncate || !manager.fileExists(atPath: url.path) {
            guard manager.createFile(atPath: url.path, contents: nil) else {
                throw OpenError(path: url.path, reason: "cannot create the file")
            }
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            size = try handle.seekToEnd()
            self.handle = handle
        } catch {
            throw OpenError(path: url.path, reason: "\(error)")
        }
    }

    deinit { try? handle?.close() }

    public func emit(_ event: Event) {
        guard var line = try? EventJSON.encode(event) else {
            lock.lock(); droppedCount += 1; lock.unlock()
            return
        }
        line.append(0x0A)
        lock.lock(); defer { lock.unlock() }
        guard let handle, size + UInt64(line.count) <= maxBytes else {
            droppedCount += 1
            return
        }
        do {
            try handle.write(contentsOf: line)
            size += UInt64(line.count)
            writtenCount += 1
        } catch {
            droppedCount += 1
        }
    }

    /// Events written so far.
    public var written: Int {
        lock.lock(); defer { lock.unlock() }
        return writtenCount
    }

    /// Events dropped so far (file full, encoding or write failure).
    public var dropped: Int {
        lock.lock(); defer { lock.unlock() }
        return droppedCount
    }

    /// Forces written events to stable storage.
    public func synchronize() {
        lock.lock(); defer { lock.unlock() }
        try? handle?.synchronize()
    }

    /// Closes the file; later events are dropped and counted.
    public func close() {
        lock.lock(); defer { lock.unlock() }
        try? handle?.close()
        handle = nil
    }
}
