#if canImport(Darwin)
import Darwin
import Foundation
import MachO
import VigilCore

/// The loaded Mach-O images of this process with their `LC_UUID`s. Mirrors ``ELFImageList``
/// (Linux).
///
/// The list is kept by dyld's own notifications (`_dyld_register_func_for_add_image` and
/// `…_remove_image`, registered once per process; the add callback is called at once for every
/// image already loaded), never by indexing `_dyld_get_image_header(i)`: another thread's
/// `dlopen`/`dlclose` can shift the indices between `_dyld_image_count()` and the lookup, which
/// is how an image gets the wrong path or is skipped. sentry-cocoa's binary image cache and
/// KSCrash's do the same. The callbacks run under dyld's lock: they parse the header (memory
/// reads) and copy one string from `dladdr`, nothing more.
///
/// An image's size is its `__TEXT` segment's `vmsize`: code addresses fall inside it, and in the
/// shared cache the other segments (`__LINKEDIT` above all) are shared by every library, so a
/// range spanning all segments would overlap its neighbours' and map addresses to the wrong
/// image.
public final class DyldImageList: LoadedImageSource, @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var registered = false
    nonisolated(unsafe) private static var loaded: [UInt: ImageInfo] = [:]
    nonisolated(unsafe) private static var order: [UInt] = []
    nonisolated(unsafe) private static var changes: UInt64 = 0

    /// A view of the process's image list (registers dyld's callbacks the first time).
    public init() { Self.registerOnce() }

    public func images() -> [ImageInfo] {
        Self.lock.lock(); defer { Self.lock.unlock() }
        return Self.order.compactMap { Self.loaded[$0] }
    }

    /// Increases each time dyld adds or removes an image: a cheap test for "changed since".
    public var generation: UInt64 {
        Self.lock.lock(); defer { Self.lock.unlock() }
        return Self.changes
    }

    private static func registerOnce() {
        lock.lock()
        let first = !registered
        registered = true
        lock.unlock()
        guard first else { return }
        _dyld_register_func_for_add_image { header, _ in
            guard let header else { return }
            DyldImageList.added(header)
        }
        _dyld_register_func_for_remove_image { header, _ in
            guard let header else { return }
            DyldImageList.removed(header)
        }
    }

    private static func added(_ header: UnsafePointer<mach_header>) {
        var info = Dl_info()
        let path = dladdr(header, &info) != 0 && info.dli_fname != nil ? String(cString: info.dli_fname) : ""
        guard let image = image(header, path: path) else { return }
        let key = UInt(bitPattern: header)
        lock.lock()
        if loaded.updateValue(image, forKey: key) == nil { order.append(key) }
        changes &+= 1
        lock.unlock()
    }

    private static func removed(_ header: UnsafePointer<mach_header>) {
        let key = UInt(bitPattern: header)
        lock.lock()
        if loaded.removeValue(forKey: key) != nil { order.removeAll { $0 == key } }
        changes &+= 1
        lock.unlock()
    }

    private static func image(_ header: UnsafePointer<mach_header>, path: String) -> ImageInfo? {
        guard header.pointee.magic == MH_MAGIC_64 else { return nil }
        var uuid: String?
        var textSize: UInt64?
        var command = UnsafeRawPointer(header).advanced(by: MemoryLayout<mach_header_64>.size)
        for _ in 0..<header.pointee.ncmds {
            let load = command.load(as: load_command.self)
            if load.cmd == UInt32(LC_UUID) {
                let body = command.load(as: uuid_command.self)
                uuid = UUID(uuid: body.uuid).uuidString
            } else if load.cmd == UInt32(LC_SEGMENT_64) {
                let segment = command.load(as: segment_command_64.self)
                let name = withUnsafeBytes(of: segment.segname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == "__TEXT" { textSize = segment.vmsize }
            }
            command = command.advanced(by: Int(load.cmdsize))
        }
        guard let textSize, textSize > 0 else { return nil }
        #if arch(arm64)
        let architecture = "arm64"
        #else
        let architecture = "x86_64"
        #endif
        let name = path.split(separator: "/").last.map(String.init) ?? path
        // The header is the start of __TEXT, so the load address is the header's address.
        return ImageInfo(name: name, id: uuid ?? "", arch: architecture,
                         loadAddress: Address(UInt64(UInt(bitPattern: header))), size: textSize,
                         path: path.isEmpty ? nil : path)
    }
}
#endif
