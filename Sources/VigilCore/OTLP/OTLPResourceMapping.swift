import Foundation

/// The OpenTelemetry resource attributes that describe a Vigil app on one device, and back:
/// `service.name` (app id), `service.version`, `os.type`, `os.name`, `os.version`,
/// `device.model.identifier`, `device.manufacturer`, `host.arch`, `session.id` and the
/// `telemetry.sdk.*` triple, plus `vigil.app.build` and `vigil.device.arch` where the
/// conventions have no slot or lose precision.
public enum OTLPResourceMapping {
    /// Attribute keys read back by ``app(from:)``, ``device(from:)`` and ``session(from:)``;
    /// any other resource attribute is carried onto the imported span.
    public static let knownKeys: Set<String> = [
        "service.name", "service.version", "vigil.app.build", "os.type", "os.name", "os.version",
        "device.model.identifier", "device.manufacturer", "host.arch", "vigil.device.arch", "session.id",
        "telemetry.sdk.name", "telemetry.sdk.language", "telemetry.sdk.version",
    ]

    /// The resource of an app run.
    public static func attributes(app: AppInfo, device: DeviceInfo, session: UUID) -> [OTLPKeyValue] {
        var result: [OTLPKeyValue] = [
            OTLPKeyValue(key: "service.name", value: .string(app.id)),
            OTLPKeyValue(key: "service.version", value: .string(app.version)),
            OTLPKeyValue(key: "vigil.app.build", value: .string(app.build)),
            OTLPKeyValue(key: "os.type", value: .string(osType(device.os))),
            OTLPKeyValue(key: "os.name", value: .string(device.os)),
            OTLPKeyValue(key: "os.version", value: .string(device.osVersion)),
            OTLPKeyValue(key: "device.model.identifier", value: .string(device.model)),
        ]
        if osType(device.os) == "darwin" {
            result.append(OTLPKeyValue(key: "device.manufacturer", value: .string("Apple")))
        }
        result += [
            OTLPKeyValue(key: "host.arch", value: .string(hostArch(device.arch))),
            OTLPKeyValue(key: "vigil.device.arch", value: .string(device.arch)),
            OTLPKeyValue(key: "session.id", value: .string(session.uuidString)),
            OTLPKeyValue(key: "telemetry.sdk.name", value: .string("vigil")),
            OTLPKeyValue(key: "telemetry.sdk.language", value: .string("swift")),
            OTLPKeyValue(key: "telemetry.sdk.version", value: .string(VigilVersion.string)),
        ]
        return result
    }

    /// The app a resource describes; `service.name` defaults to `unknown_service` as in the
    /// OpenTelemetry SDKs, a missing version to `unknown`.
    public static func app(from attributes: [OTLPKeyValue]) -> AppInfo {
        AppInfo(id: nonEmpty(attributes.string(for: "service.name")) ?? "unknown_service",
                version: nonEmpty(attributes.string(for: "service.version")) ?? "unknown",
                build: attributes.string(for: "vigil.app.build") ?? "")
    }

    /// The device a resource describes, from `device.*`, `os.*` and `host.*` (a backend's
    /// `host.name` stands in for the model).
    public static func device(from attributes: [OTLPKeyValue]) -> DeviceInfo {
        let arch = nonEmpty(attributes.string(for: "vigil.device.arch"))
            ?? attributes.string(for: "host.arch").map(archFromHostArch) ?? "unknown"
        return DeviceInfo(model: nonEmpty(attributes.string(for: "device.model.identifier"))
                            ?? nonEmpty(attributes.string(for: "host.name")) ?? "unknown",
                          os: nonEmpty(attributes.string(for: "os.name"))
                            ?? attributes.string(for: "os.type").map(osName) ?? "unknown",
                          osVersion: nonEmpty(attributes.string(for: "os.version")) ?? "unknown",
                          arch: arch)
    }

    /// The session of a resource: `session.id` when it is a UUID, otherwise a UUID derived from
    /// the service's identity so that one backend instance keeps one session.
    public static func session(from attributes: [OTLPKeyValue]) -> UUID {
        if let text = attributes.string(for: "session.id"), let id = UUID(uuidString: text) { return id }
        let identity = ["service.namespace", "service.name", "service.instance.id", "host.name", "host.id"]
            .map { attributes.string(for: $0) ?? "" }.joined(separator: "\u{1F}")
        return StableUUID.make(from: identity)
    }

    /// OpenTelemetry's `os.type` for an OS name.
    static func osType(_ os: String) -> String {
        switch os.lowercased() {
        case "ios", "ipados", "macos", "tvos", "watchos", "visionos", "darwin": return "darwin"
        case "linux", "android": return "linux"
        case "windows": return "windows"
        case "freebsd": return "freebsd"
        default: return os.lowercased()
        }
    }

    static func osName(_ type: String) -> String {
        switch type {
        case "darwin": return "Darwin"
        case "linux": return "Linux"
        case "windows": return "Windows"
        default: return type
        }
    }

    /// OpenTelemetry's `host.arch` values for the architectures Vigil reports.
    static func hostArch(_ arch: String) -> String {
        switch arch {
        case "x86_64": return "amd64"
        case "arm64", "arm64e", "aarch64": return "arm64"
        case "armv7", "armv7k", "armv7s", "arm64_32": return "arm32"
        case "i386", "i686": return "x86"
        default: return arch
        }
    }

    static func archFromHostArch(_ arch: String) -> String {
        switch arch {
        case "amd64": return "x86_64"
        case "x86": return "i386"
        default: return arch
        }
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
