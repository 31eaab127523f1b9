#if os(Linux)
import CVigilRuntime
import Foundation
import VigilCore

/// The loaded ELF images of this process (the executable, its shared libraries and the vDSO)
/// with their GNU build ids, from `dl_iterate_phdr` via `vigil_images_snapshot`.
///
/// The snapshot lives in storage allocated once (`capacity` entries of about 600 bytes); images
/// beyond it are counted in ``dropped``. ``images()`` re-reads the list only when the loader's
/// add/remove counters moved, which costs one `dl_iterate_phdr` step. Thread-safe.
public final class ELFImageList: LoadedImageSource, @unchecked Sendable {
    private let storage: UnsafeMutablePointer<vigil_image>
    private var list: vigil_image_list
    private var cached: [ImageInfo] = []
    private var snapshotTaken = false
    private let lock = NSLock()

    /// A list with room for `capacity` images (at least 1).
    public init(capacity: Int = 1024) {
        let count = max(1, min(capacity, 65_536))
        storage = .allocate(capacity: count)
        storage.initialize(repeating: vigil_image(), count: count)
        list = vigil_image_list(images: storage, capacity: UInt32(count), count: 0, dropped: 0, skipped: 0,
                                loader_adds: 0, loader_subs: 0)
    }

    deinit { storage.deallocate() }

    /// Images that did not fit into the storage at the last snapshot.
    public var dropped: Int {
        lock.lock(); defer { lock.unlock() }
        return Int(list.dropped)
    }

    public func images() -> [ImageInfo] {
        lock.lock(); defer { lock.unlock() }
        if !snapshotTaken || vigil_images_changed(&list) != 0 {
            refreshLocked()
        }
        return cached
    }

    /// Re-reads the list now, whether or not the loader reports a change.
    public func refresh() {
        lock.lock(); defer { lock.unlock() }
        refreshLocked()
    }

    private func refreshLocked() {
        guard vigil_images_snapshot(&list) == 0 else { return }
        snapshotTaken = true
        let architecture = String(cString: vigil_image_architecture())
        var result: [ImageInfo] = []
        result.reserveCapacity(Int(list.count))
        for index in 0..<Int(min(list.count, list.capacity)) {
            var image = storage[index]
            let path = withUnsafeBytes(of: &image.path) { raw -> String in
                let bytes = raw.prefix { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
            let id = withUnsafeBytes(of: &image.id) { raw -> String in
                raw.prefix(Int(min(image.id_length, UInt32(VIGIL_IMAGE_ID_CAPACITY))))
                    .map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
            }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            result.append(ImageInfo(name: name.isEmpty ? "<unnamed>" : name, id: id, arch: architecture,
                                    loadAddress: Address(UInt64(image.load_address)), size: image.size,
                                    path: path.isEmpty ? nil : path))
        }
        cached = result
    }
}
#endif
