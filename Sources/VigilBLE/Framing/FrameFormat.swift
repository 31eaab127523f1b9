/// The shape of one device family's `0xAA55` frames: which checksum closes them and how long a
/// payload may be.
///
/// `maxPayloadLength` is the reassembler's defence against a corrupted or hostile length field:
/// a header announcing more is treated as noise, and it bounds the reassembler's memory to about
/// two maximal frames.
public struct FrameFormat: Sendable, Hashable {
    /// The two bytes every frame starts with.
    public static let sync: (UInt8, UInt8) = (0xAA, 0x55)
    /// Sync (2) + command (1) + length (2).
    public static let headerLength = 5

    /// The closing checksum.
    public var checksum: FrameChecksum
    /// The longest payload accepted, in bytes (at most 65,535, what the length field holds).
    public var maxPayloadLength: Int

    /// A format; `maxPayloadLength` is clamped to 0…65,535.
    public init(checksum: FrameChecksum = .crc16CCITT, maxPayloadLength: Int = 1024) {
        self.checksum = checksum
        self.maxPayloadLength = min(max(0, maxPayloadLength), Int(UInt16.max))
    }

    /// The longest frame on the wire, in bytes.
    public var maxFrameLength: Int { FrameFormat.headerLength + maxPayloadLength + checksum.width }

    /// The length of a frame carrying `payloadLength` bytes.
    public func frameLength(payloadLength: Int) -> Int {
        FrameFormat.headerLength + payloadLength + checksum.width
    }
}
