/// One application frame: `0xAA 0x55 | command u8 | length u16 (big-endian) | payload | checksum`.
///
/// The byte layout is in docs/ble-protocol.md. A frame is a value; encoding checks the payload
/// fits the format and never traps.
public struct Frame: Sendable, Hashable, CustomStringConvertible {
    /// The command (or, in responses, the command with its high bit set).
    public var command: UInt8
    /// The payload, 0…65,535 bytes.
    public var payload: [UInt8]

    /// A frame.
    public init(command: UInt8, payload: [UInt8] = []) {
        self.command = command
        self.payload = payload
    }

    /// The frame's bytes in `format`. Throws ``FramingError/payloadTooLong(length:limit:)`` when
    /// the payload exceeds the format's limit. Cost: one pass over the payload.
    public func encoded(in format: FrameFormat) throws(FramingError) -> [UInt8] {
        guard payload.count <= format.maxPayloadLength else {
            throw .payloadTooLong(length: payload.count, limit: format.maxPayloadLength)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(format.frameLength(payloadLength: payload.count))
        bytes.append(FrameFormat.sync.0)
        bytes.append(FrameFormat.sync.1)
        bytes.append(command)
        bytes.append(UInt8(truncatingIfNeeded: payload.count >> 8))
        bytes.append(UInt8(truncatingIfNeeded: payload.count))
        bytes.append(contentsOf: payload)
        let checksum = format.checksum.compute(bytes[2...])
        if format.checksum.width == 2 { bytes.append(UInt8(truncatingIfNeeded: checksum >> 8)) }
        bytes.append(UInt8(truncatingIfNeeded: checksum))
        return bytes
    }

    public var description: String { "Frame(command: 0x\(String(command, radix: 16)), \(payload.count) bytes)" }
}
