#if canImport(Darwin)
import Darwin
import Foundation
import MachO
import VigilCore

/// The loaded Mach-O images of this process with their `LC_UUID`s, from `_dyld_*`. Mirrors
/// ``ELFImageList`` (Linux): re-read when the image count changes.
public final class DyldImageList: LoadedImageSource, @unchecked Sendable {
    private let lock = NSLock()
    private var cached: [ImageInfo] = []
    private var cachedCount: UInt32 = .max

    public init() {}

    public func images() -> [ImageInfo] {
        lock.lock(); defer { lock.unlock() }
        let count = _dyld_image_count()
        if count != cachedCount {
            cached = (0..<count).compactMap(Self.image(at:))
            cachedCount = count
        }
        return cached
    }

    private static func image(at index: UInt32) -> ImageInfo? {
        guard let header = _dyld_get_image_header(index), header.pointee.magic == MH_MAGIC_64 else { return nil }
        let path = _dyld_get_image_name(index).map { String(cString: $0) } ?? ""
        var uuid: String?
        var lowest = UInt64.max
        var highest: UInt64 = 0
        var command = UnsafeRawPointer(header).advanced(by: MemoryLayout<mach_header_64>.size)
        for _ in 0..<header.pointee.ncmds {
            let load = command.load(as: load_command.self)
            if load.cmd == UInt32(LC_UUID) {
                let body = command.load(as: uuid_command.self)
                uuid = UUID(uuid: body.uuid).uuidString
            } else if load.cmd == UInt32(LC_SEGMENT_64) {
                let segment = command.load(as: segment_command_64.self)
                let name = withUnsafeBytes(of: segment.segname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "__PAGEZERO" {
                    lowest = min(lowest, segment.vmaddr)
                    highest = max(highest, segment.vmaddr + segment.vmsize)
                }
            }
            command = command.advanced(by: Int(load.cmdsize))
        }
        guard lowest < highest else { return nil }
        #if arch(arm64)
        let architecture = "arm64"
        #else
        let architecture = "x86_64"
        #endif
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return ImageInfo(name: name, id: uuid ?? "", arch: architecture,
                         loadAddress: Address(UInt64(UInt(bitPattern: header))), size: highest - lowest,
                         path: path.isEmpty ? nil : path)
    }
}
#endif
