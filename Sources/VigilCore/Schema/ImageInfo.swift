/// A binary image loaded in the process when a stack was captured.
///
/// The server maps each absolute stack address to the image whose
/// `[loadAddress, loadAddress + size)` contains it, then looks the offset up in the debug file
/// whose UUID (Mach-O) or GNU build id (ELF) equals ``id``.
public struct ImageInfo: Codable, Sendable, Hashable {
    /// File name of the image, e.g. `Shop` or `libswiftCore.so`.
    public var name: String
    /// Mach-O `LC_UUID` as an uppercase dashed UUID, or an ELF GNU build id in lowercase hex.
    public var id: String
    /// Architecture of the image, e.g. `arm64`, `arm64e`, `x86_64`.
    public var arch: String
    /// Where the image's first byte (its Mach-O header or the ELF's lowest `PT_LOAD`) sits in
    /// memory.
    public var loadAddress: Address
    /// Bytes from `loadAddress` to the end of the image's last mapped segment.
    public var size: UInt64
    /// Full path of the image on the device, when known. Used to tell the app's own images
    /// (inside its bundle) from system ones.
    public var path: String?

    public init(name: String, id: String, arch: String, loadAddress: Address, size: UInt64, path: String? = nil) {
        self.name = name
        self.id = id
        self.arch = arch
        self.loadAddress = loadAddress
        self.size = size
        self.path = path
    }

    /// Whether `address` falls inside this image.
    public func contains(_ address: Address) -> Bool {
        address.value >= loadAddress.value && address.value - loadAddress.value < size
    }
}
