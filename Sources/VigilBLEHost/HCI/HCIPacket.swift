/// One HCI packet as it crosses the H4 transport (Core spec Vol 4 Part A: a one-byte packet
/// type indicator, then the packet).
public enum HCIPacket: Sendable, Hashable {
    /// A command, host to controller: opcode (OGF << 10 | OCF) and parameters (≤ 255 bytes).
    case command(opcode: UInt16, parameters: [UInt8])
    /// ACL data in either direction.
    case acl(ACLPacket)
    /// SCO data (never used over LE; decoded so the stream stays in step).
    case sco(handle: UInt16, data: [UInt8])
    /// An event, controller to host: event code and parameters (≤ 255 bytes).
    case event(code: UInt8, parameters: [UInt8])
    /// ISO data (not used; decoded so the stream stays in step).
    case iso(handle: UInt16, data: [UInt8])

    /// H4 packet type indicators.
    public enum Indicator: UInt8, Sendable {
        case command = 0x01, acl = 0x02, sco = 0x03, event = 0x04, iso = 0x05
    }

    /// The packet with its H4 type indicator, ready to write to the transport.
    public var h4Bytes: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .command(let opcode, let parameters):
            out.reserveCapacity(4 + parameters.count)
            out.append(Indicator.command.rawValue)
            out.appendLE(opcode)
            out.append(UInt8(truncatingIfNeeded: parameters.count))
            out += parameters.prefix(255)
        case .acl(let packet):
            out.append(Indicator.acl.rawValue)
            out += packet.bytes
        case .sco(let handle, let data):
            out.append(Indicator.sco.rawValue)
            out.appendLE(handle & 0x0FFF)
            out.append(UInt8(truncatingIfNeeded: data.count))
            out += data.prefix(255)
        case .event(let code, let parameters):
            out.append(Indicator.event.rawValue)
            out.append(code)
            out.append(UInt8(truncatingIfNeeded: parameters.count))
            out += parameters.prefix(255)
        case .iso(let handle, let data):
            out.append(Indicator.iso.rawValue)
            out.appendLE(handle & 0x0FFF)
            out.appendLE(UInt16(truncatingIfNeeded: data.count) & 0x3FFF)
            out += data.prefix(0x3FFF)
        }
        return out
    }
}

/// An HCI ACL data packet (Core spec Vol 4 Part E 5.4.2).
public struct ACLPacket: Sendable, Hashable {
    /// Packet boundary flag values.
    public enum Boundary: UInt8, Sendable {
        /// First fragment of a non-flushable L2CAP PDU (host to controller on LE).
        case firstNonFlushable = 0b00
        /// A continuing fragment.
        case continuing = 0b01
        /// First fragment of a flushable PDU (what controllers send to the host).
        case firstFlushable = 0b10
        /// A complete automatically-flushable PDU (BR/EDR only).
        case complete = 0b11
    }

    /// Connection handle (12 bits).
    public var handle: UInt16
    /// Where this fragment sits in its L2CAP PDU.
    public var boundary: Boundary
    /// Broadcast flag (2 bits; 0 on LE).
    public var broadcast: UInt8
    /// The fragment.
    public var data: [UInt8]

    /// A packet.
    public init(handle: UInt16, boundary: Boundary, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0b11
        self.data = data
    }

    /// The packet without the H4 indicator.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4 + data.count)
        out.appendLE(handle | UInt16(boundary.rawValue) << 12 | UInt16(broadcast) << 14)
        out.appendLE(UInt16(truncatingIfNeeded: data.count))
        out += data
        return out
    }
}
