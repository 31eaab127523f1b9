/// The file operations the store performs, so that tests can make the disk fill up or refuse
/// writes; ``LocalFileSystem`` is the real one.
///
/// Files are plain POSIX descriptors. Every method is called from the store's own queue only.
public protocol StoreFileSystem: Sendable {
    /// Creates `path` and its parents when missing.
    func makeDirectory(_ path: String) throws(StoreIOError)
    /// Names of the entries of `directory`.
    func fileNames(in directory: String) throws(StoreIOError) -> [String]
    /// Opens `path` in `mode` and returns its descriptor.
    func open(_ path: String, mode: StoreFileMode) throws(StoreIOError) -> Int32
    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (0 at the end).
    func read(_ descriptor: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(StoreIOError) -> Int
    /// Appends all of `bytes`, or throws (some of them may have reached the file).
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(StoreIOError)
    /// Flushes the file's data to stable storage (`fsync`).
    func sync(_ descriptor: Int32) throws(StoreIOError)
    /// The file's size in bytes.
    func size(_ descriptor: Int32) throws(StoreIOError) -> Int
    /// Cuts the file to `size` bytes.
    func truncate(_ descriptor: Int32, to size: Int) throws(StoreIOError)
    /// Closes a descriptor.
    func close(_ descriptor: Int32)
    /// Atomically renames `source` to `destination`, replacing it.
    func rename(_ source: String, to destination: String) throws(StoreIOError)
    /// Removes a file; a missing file is not an error.
    func remove(_ path: String)
    /// Takes an exclusive advisory lock on an open file without waiting; `false` when another
    /// process holds it.
    func lockExclusively(_ descriptor: Int32) -> Bool
}

/// How ``StoreFileSystem/open(_:mode:)`` opens a file.
public enum StoreFileMode: Sendable, Hashable {
    /// Read only.
    case read
    /// Write-only appends, creating the file when missing.
    case append
    /// Write-only appends to a file that must not exist yet.
    case createNew
    /// Write-only, created or emptied.
    case replace
    /// Read-write, created when missing (the lock file).
    case lock
    /// A directory, opened only to `fsync` it.
    case directory
}
