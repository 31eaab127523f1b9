import VigilCore

/// The binary images loaded in the process, so that events with stacks can say which image
/// each address belongs to (``ImageInfo``: name, UUID or build id, load address, size, path).
///
/// Linux: ``ELFImageList`` (`dl_iterate_phdr`, GNU build ids). Apple platforms:
/// `DyldImageList` (`_dyld_*`, `LC_UUID`).
public protocol LoadedImageSource: AnyObject, Sendable {
    /// Every loaded image, re-read when the loader reports that images were added or removed
    /// since the last call. Not for signal handlers; call from the monitoring queue.
    func images() -> [ImageInfo]
}

extension LoadedImageSource {
    /// The loaded images that contain at least one of `addresses`, in load-address order: what
    /// an event needs to be symbolicated, without the dozens of libraries its stacks never
    /// touch.
    public func images(containing addresses: some Sequence<Address>) -> [ImageInfo] {
        let all = images().sorted { $0.loadAddress < $1.loadAddress }
        guard !all.isEmpty else { return [] }
        var used = Set<Int>()
        for address in addresses {
            // Binary search for the last image starting at or below the address.
            var low = 0
            var high = all.count
            while low < high {
                let middle = (low + high) / 2
                if all[middle].loadAddress <= address { low = middle + 1 } else { high = middle }
            }
            if low > 0, all[low - 1].contains(address) { used.insert(low - 1) }
        }
        return used.sorted().map { all[$0] }
    }
}
