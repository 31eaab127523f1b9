/// The device and operating system an event came from.
public struct DeviceInfo: Codable, Sendable, Hashable {
    /// Hardware model identifier, e.g. `iPhone14,2`, or the machine name on Linux.
    public var model: String
    /// Operating system name, e.g. `iOS`, `macOS`, `Linux`.
    public var os: String
    /// Operating system version, e.g. `18.1`.
    public var osVersion: String
    /// CPU architecture of the process, e.g. `arm64`, `x86_64`.
    public var arch: String

    public init(model: String, os: String, osVersion: String, arch: String) {
        self.model = model
        self.os = os
        self.osVersion = osVersion
        self.arch = arch
    }
}
