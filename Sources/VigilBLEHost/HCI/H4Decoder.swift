/// Splits an H4 byte stream into HCI packets, whatever sizes the stream arrives in.
///
/// Feed it every byte read from the transport; it returns the packets completed so far and
/// keeps a partial one for the next call. An unknown packet type indicator throws
/// ``HostDecodingError/unknownPacketType(_:)``: H4 has no resynchronisation, so the channel
/// must be closed. Cost: O(bytes); at most one packet (≤ 65,539 bytes) is buffered.
public struct H4Decoder: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0

    /// A decoder at a packet boundary.
    public init() {}

    /// Bytes held back waiting for the rest of their packet.
    public var pendingByteCount: Int { buffer.count - start }

    /// Appends `bytes` and returns every packet they complete.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(HostDecodingError) -> [HCIPacket] {
        buffer.append(contentsOf: bytes)
        var packets: [HCIPacket] = []
        while let packet = try nextPacket() { packets.append(packet) }
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        return packets
    }

    private mutating func nextPacket() throws(HostDecodingError) -> HCIPacket? {
        let available = buffer.count - start
        guard available >= 1 else { return nil }
        let type = buffer[start]
        let headerLength: Int
        switch HCIPacket.Indicator(rawValue: type) {
        case .command: headerLength = 3
        case .acl: headerLength = 4
        case .sco: headerLength = 3
        case .event: headerLength = 2
        case .iso: headerLength = 4
        case nil: throw .unknownPacketType(type)
        }
        guard available >= 1 + headerLength else { return nil }
        let h = start + 1
        let payloadLength: Int
        switch HCIPacket.Indicator(rawValue: type) {
        case .command, .sco: payloadLength = Int(buffer[h + 2])
        case .acl: payloadLength = Int(buffer[h + 2]) | Int(buffer[h + 3]) << 8
        case .event: payloadLength = Int(buffer[h + 1])
        case .iso: payloadLength = (Int(buffer[h + 2]) | Int(buffer[h + 3]) << 8) & 0x3FFF
        case nil: throw .unknownPacketType(type)
        }
        let total = 1 + headerLength + payloadLength
        guard available >= total else { return nil }
        let payload = Array(buffer[(h + headerLength)..<(start + total)])
        let word = UInt16(buffer[h]) | UInt16(buffer[h + 1]) << 8
        defer { start += total }
        switch HCIPacket.Indicator(rawValue: type) {
        case .command: return .command(opcode: word, parameters: payload)
        case .acl:
            let boundary = ACLPacket.Boundary(rawValue: UInt8((word >> 12) & 0b11)) ?? .continuing
            return .acl(ACLPacket(handle: word & 0x0FFF, boundary: boundary, broadcast: UInt8(word >> 14), data: payload))
        case .sco: return .sco(handle: word & 0x0FFF, data: payload)
        case .event: return .event(code: buffer[h], parameters: payload)
        case .iso: return .iso(handle: word & 0x0FFF, data: payload)
        case nil: throw .unknownPacketType(type)
        }
    }
}
