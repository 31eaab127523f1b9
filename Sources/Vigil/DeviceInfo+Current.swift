import Foundation
import VigilCore

extension DeviceInfo {
    /// The device this process runs on: the hardware model (`hw.machine` on Apple platforms,
    /// the DMI product name on Linux, or `unknown`), the OS name and version, and the
    /// architecture. Never the host name, which can identify a person.
    public static var current: DeviceInfo {
        var names = utsname()
        uname(&names)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let machine = field(names.machine)
        let architecture = machine == "aarch64" ? "arm64" : machine
        #if os(Linux)
        let product = (try? String(contentsOfFile: "/sys/devices/virtual/dmi/id/product_name", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let model = (product?.isEmpty == false ? product : nil) ?? "unknown"
        return DeviceInfo(model: String(model.prefix(128)), os: "Linux", osVersion: field(names.release),
                          arch: architecture)
        #else
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(iOS)
        let os = "iOS"
        #elseif os(tvOS)
        let os = "tvOS"
        #elseif os(watchOS)
        let os = "watchOS"
        #else
        let os = "macOS"
        #endif
        return DeviceInfo(model: machine, os: os,
                          osVersion: "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
                          arch: architecture)
        #endif
    }
}
