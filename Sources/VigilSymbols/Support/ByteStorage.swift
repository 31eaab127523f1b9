import Foundation

/// Immutable bytes with a stable address for as long as the storage lives: a read-only `mmap`
/// of a file, or a private copy of a `Data` value, or decompressed section contents.
///
/// Parsers read through ``bytes`` (an `UnsafeRawBufferPointer`) so that lookups cost no
/// copies and no bridging; every type that hands those pointers out keeps its storage alive.
/// Thread-safe: the bytes never change after initialization.
final class ByteStorage: @unchecked Sendable {
    /// The bytes; valid for the storage's lifetime.
    let bytes: UnsafeRawBufferPointer
    private let release: Release

    private enum Release {
        case none
        case unmap(UnsafeMutableRawPointer, Int)
        case deallocate(UnsafeMutableRawPointer)
    }

    /// Maps `path` read-only. Empty files give empty storage (mmap refuses length 0).
    init(mappingFile path: String) throws(SymbolsError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw SymbolsError(.io, "cannot open: \(String(cString: strerror(errno)))", path: path)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw SymbolsError(.io, "cannot stat: \(String(cString: strerror(errno)))", path: path)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw SymbolsError(.io, "not a regular file", path: path)
        }
        let size = Int(status.st_size)
        if size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            release = .none
            return
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw SymbolsError(.io, "cannot map \(size) bytes: \(String(cString: strerror(errno)))", path: path)
        }
        bytes = UnsafeRawBufferPointer(start: mapped, count: size)
        release = .unmap(mapped, size)
    }

    /// Copies `data` into storage of its own (one copy, so later reads need no `Data` access).
    init(copying data: Data) {
        if data.isEmpty {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            release = .none
            return
        }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: data.count, alignment: 16)
        data.withUnsafeBytes { source in
            memory.copyMemory(from: source.baseAddress!, byteCount: source.count)
        }
        bytes = UnsafeRawBufferPointer(start: memory, count: data.count)
        release = .deallocate(memory)
    }

    /// Takes ownership of `memory` (allocated with `UnsafeMutableRawPointer.allocate`).
    init(owning memory: UnsafeMutableRawPointer, count: Int) {
        bytes = UnsafeRawBufferPointer(start: memory, count: count)
        release = .deallocate(memory)
    }

    deinit {
        switch release {
        case .none: break
        case .unmap(let pointer, let size): munmap(pointer, size)
        case .deallocate(let pointer): pointer.deallocate()
        }
    }
}
