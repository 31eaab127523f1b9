/// The radio parameters that set how fast a BLE link can stream: PHY, link-layer data length,
/// ATT MTU, connection interval and how many packets the central sends per connection event.
///
/// The values a phone and a peer negotiated (iOS does not expose all of them; firmware logs
/// do). Used by ``StreamingBound`` and by the simulator.
public struct LinkParameters: Sendable, Hashable, CustomStringConvertible {
    /// The physical layer.
    public enum PHY: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// LE 1M: 1 Mbit/s, 1-byte preamble.
        case oneM = "1M"
        /// LE 2M: 2 Mbit/s, 2-byte preamble.
        case twoM = "2M"

        /// Microseconds per byte on air.
        public var microsecondsPerByte: Double { self == .oneM ? 8 : 4 }
        /// Preamble length in bytes.
        public var preambleBytes: Int { self == .oneM ? 1 : 2 }

        /// Parses `1M`/`2M` (case-insensitive, `1`/`2` accepted).
        public init?(name: String) {
            switch name.uppercased() {
            case "1M", "1": self = .oneM
            case "2M", "2": self = .twoM
            default: return nil
            }
        }

        public var description: String { rawValue }
    }

    /// PHY.
    public var phy: PHY
    /// Link-layer maximum payload per packet, 27…251 bytes (Data Length Extension).
    public var dataLength: Int
    /// ATT MTU, 23…517 bytes.
    public var attMTU: Int
    /// Connection interval, 7.5…4000 ms.
    public var connectionIntervalMs: Double
    /// Most link-layer packets the central sends in one connection event (a controller limit;
    /// iPhones have been measured at 4–7).
    public var packetsPerEvent: Int

    /// Parameters; `dataLength` defaults to what the MTU needs (MTU + 4, at most 251).
    public init(phy: PHY = .twoM, dataLength: Int? = nil, attMTU: Int = 247, connectionIntervalMs: Double = 15,
                packetsPerEvent: Int = 5) {
        self.phy = phy
        self.dataLength = dataLength ?? min(251, attMTU + 4)
        self.attMTU = attMTU
        self.connectionIntervalMs = connectionIntervalMs
        self.packetsPerEvent = packetsPerEvent
    }

    /// Checks every field against the Bluetooth Core Specification's ranges.
    public func validated() throws(LinkParametersError) -> LinkParameters {
        guard (27...251).contains(dataLength) else { throw .outOfRange(field: "dataLength", value: Double(dataLength), range: "27…251") }
        guard (23...517).contains(attMTU) else { throw .outOfRange(field: "attMTU", value: Double(attMTU), range: "23…517") }
        guard connectionIntervalMs >= 7.5, connectionIntervalMs <= 4000 else {
            throw .outOfRange(field: "connectionIntervalMs", value: connectionIntervalMs, range: "7.5…4000")
        }
        guard (1...1000).contains(packetsPerEvent) else {
            throw .outOfRange(field: "packetsPerEvent", value: Double(packetsPerEvent), range: "1…1000")
        }
        return self
    }

    /// The longest Write Command value: ATT MTU − 3 (opcode and handle).
    public var maxWriteValueLength: Int { attMTU - 3 }

    public var description: String {
        "MTU \(attMTU), \(phy) PHY, data length \(dataLength), \(connectionIntervalMs) ms interval, \(packetsPerEvent) packets/event"
    }
}

/// A link parameter outside the specification's range.
public enum LinkParametersError: Error, Sendable, Hashable, CustomStringConvertible {
    case outOfRange(field: String, value: Double, range: String)

    public var description: String {
        switch self {
        case .outOfRange(let field, let value, let range): return "\(field) = \(value) is outside \(range)"
        }
    }
}
