/// A Bluetooth device address with its LE address type.
///
/// Written as `AA:BB:CC:DD:EE:FF` (most significant byte first, as people read it) with an
/// optional `/public` or `/random` suffix; on the wire the six bytes go least significant first.
public struct DeviceAddress: Sendable, Hashable, CustomStringConvertible {
    /// LE address types as HCI encodes them.
    public enum Kind: UInt8, Sendable {
        /// A public device address (IEEE-assigned).
        case publicDevice = 0x00
        /// A random device address (static or private).
        case random = 0x01
        /// A public identity address resolved by the controller.
        case publicIdentity = 0x02
        /// A random (static) identity address resolved by the controller.
        case randomIdentity = 0x03
    }

    /// The address bytes in wire order (least significant first).
    public var wireBytes: [UInt8]
    /// The address type.
    public var kind: Kind

    /// An address from its six wire-order bytes.
    public init(wireBytes: [UInt8], kind: Kind) {
        var bytes = Array(wireBytes.prefix(6))
        while bytes.count < 6 { bytes.append(0) }
        self.wireBytes = bytes
        self.kind = kind
    }

    /// Parses `AA:BB:CC:DD:EE:FF[/public|/random]`; nil for anything else. Without a suffix the
    /// address is taken as `defaultKind`.
    public init?(_ text: String, defaultKind: Kind = .publicDevice) {
        var kind = defaultKind
        var body = Substring(text)
        if let slash = text.firstIndex(of: "/") {
            switch text[text.index(after: slash)...].lowercased() {
            case "public", "p": kind = .publicDevice
            case "random", "r": kind = .random
            default: return nil
            }
            body = text[..<slash]
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(wireBytes: bytes.reversed(), kind: kind)
    }

    /// A fresh static random address (the two most significant bits set, the rest random and
    /// neither all ones nor all zeros), as a host without a stored identity uses.
    public static func randomStatic<G: RandomNumberGenerator>(using generator: inout G) -> DeviceAddress {
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[5] |= 0xC0
        if bytes[0..<5].allSatisfy({ $0 == 0xFF }) && bytes[5] == 0xFF { bytes[0] = 0xFE }
        if bytes[0..<5].allSatisfy({ $0 == 0 }) && bytes[5] == 0xC0 { bytes[0] = 1 }
        return DeviceAddress(wireBytes: bytes, kind: .random)
    }

    /// `AA:BB:CC:DD:EE:FF`, without the type.
    public var text: String {
        wireBytes.reversed().map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// `AA:BB:CC:DD:EE:FF/public` or `/random`: the form used as a ``VigilBLE/PeerIdentifier``.
    public var description: String {
        text + (kind == .publicDevice || kind == .publicIdentity ? "/public" : "/random")
    }
}
