import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real ``StoreFileSystem``: POSIX calls on the local disk, retried on `EINTR`.
public struct LocalFileSystem: StoreFileSystem {
    /// The local file system.
    public init() {}

    public func makeDirectory(_ path: String) throws(StoreIOError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw StoreIOError(operation: "mkdir", path: path, code: ENOTDIR) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path, parent != "/" { try makeDirectory(parent) }
        while mkdir(path, 0o755) != 0 {
            if errno == EINTR { continue }
            if errno == EEXIST, stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return }
            throw StoreIOError(operation: "mkdir", path: path, code: errno)
        }
    }

    public func fileNames(in directory: String) throws(StoreIOError) -> [String] {
        guard let stream = opendir(directory) else {
            throw StoreIOError(operation: "opendir", path: directory, code: errno)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func open(_ path: String, mode: StoreFileMode) throws(StoreIOError) -> Int32 {
        let flags: Int32
        switch mode {
        case .read: flags = O_RDONLY
        case .append: flags = O_WRONLY | O_APPEND | O_CREAT
        case .createNew: flags = O_WRONLY | O_APPEND | O_CREAT | O_EXCL
        case .replace: flags = O_WRONLY | O_CREAT | O_TRUNC
        case .lock: flags = O_RDWR | O_CREAT
        case .directory: flags = O_RDONLY | O_DIRECTORY
        }
        while true {
            let descriptor = Foundation.open(path, flags | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw StoreIOError(operation: "open", path: path, code: errno) }
        }
    }

    public func read(_ descriptor: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(StoreIOError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = pread(descriptor, base, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw StoreIOError(operation: "pread", path: "fd \(descriptor)", code: errno) }
        }
    }

    public func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(StoreIOError) {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = systemWrite(descriptor, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw StoreIOError(operation: "write", path: "fd \(descriptor)", code: errno)
            }
            if written == 0 { throw StoreIOError(operation: "write", path: "fd \(descriptor)", code: EIO) }
            pointer += written
            remaining -= written
        }
    }

    public func sync(_ descriptor: Int32) throws(StoreIOError) {
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw StoreIOError(operation: "fsync", path: "fd \(descriptor)", code: errno) }
        }
    }

    public func size(_ descriptor: Int32) throws(StoreIOError) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw StoreIOError(operation: "fstat", path: "fd \(descriptor)", code: errno) }
        return Int(info.st_size)
    }

    public func truncate(_ descriptor: Int32, to size: Int) throws(StoreIOError) {
        while ftruncate(descriptor, off_t(size)) != 0 {
            if errno != EINTR { throw StoreIOError(operation: "ftruncate", path: "fd \(descriptor)", code: errno) }
        }
    }

    public func close(_ descriptor: Int32) {
        systemClose(descriptor)
    }

    public func rename(_ source: String, to destination: String) throws(StoreIOError) {
        while Foundation.rename(source, destination) != 0 {
            if errno != EINTR { throw StoreIOError(operation: "rename", path: source, code: errno) }
        }
    }

    public func remove(_ path: String) {
        while unlink(path) != 0 && errno == EINTR {}
    }

    public func lockExclusively(_ descriptor: Int32) -> Bool {
        // Host apps (and Vigil's own thread sampler) deliver signals: EINTR is not "locked".
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}

// File-scope wrappers: inside the struct, `write` and `close` name its own methods.
private func systemWrite(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, pointer, count)
}

private func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}
