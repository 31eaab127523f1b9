/// A Bluetooth UUID (16-, 32- or 128-bit), kept as its canonical uppercase string so that it
/// compares equal however it was spelled, and maps one to one onto `CBUUID(string:)`.
public struct BLEUUID: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// Uppercase hex, with dashes for 128-bit UUIDs (`180A`, `7A1C0001-…`).
    public let string: String

    /// A UUID from its textual form (case-insensitive).
    public init(_ string: String) { self.string = string.uppercased() }

    public init(stringLiteral value: String) { self.init(value) }

    public var description: String { string }

    public static func < (lhs: BLEUUID, rhs: BLEUUID) -> Bool { lhs.string < rhs.string }
}

/// A peer's identity as the platform reports it (`CBPeripheral.identifier` on Apple platforms,
/// an address or simulator id elsewhere). Stable across reconnects on the same phone.
public struct PeerIdentifier: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The identifier's text.
    public let rawValue: String

    /// An identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { self.init(value) }

    public var description: String { rawValue }
}

/// What a scan saw of one peer.
public struct Advertisement: Sendable, Hashable {
    /// The advertising peer.
    public var peer: PeerIdentifier
    /// Its local name, if advertised.
    public var name: String?
    /// Service UUIDs it advertises.
    public var services: [BLEUUID]
    /// Received signal strength in dBm.
    public var rssi: Int
    /// Manufacturer-specific data, if any.
    public var manufacturerData: [UInt8]

    /// An advertisement.
    public init(peer: PeerIdentifier, name: String? = nil, services: [BLEUUID] = [], rssi: Int = -60, manufacturerData: [UInt8] = []) {
        self.peer = peer
        self.name = name
        self.services = services
        self.rssi = rssi
        self.manufacturerData = manufacturerData
    }
}

/// ATT write kinds.
public enum WriteType: Sendable, Hashable {
    /// ATT Write Request: the peer answers each one; at most one outstanding (ATT is stop-and-wait).
    case withResponse
    /// ATT Write Command: unanswered, sent as fast as the stack's buffer allows.
    case withoutResponse
}
