/// The theoretical streaming bound of a BLE link: the most ATT Write Command payload per
/// second the radio can carry with the given ``LinkParameters`` (formula in docs/ble.md).
///
/// ```
/// airtime(n)   = (preamble + 4 access address + 2 header + n + 3 CRC) × µs/byte
/// slot         = airtime(min(DL, MTU + 4)) + 150 µs + airtime(0) + 150 µs   (packet, IFS, empty reply, IFS)
/// packets/event N = min(packetsPerEvent, ⌊interval / slot⌋)
/// fragments/write f = ⌈(4 L2CAP + 3 ATT + (MTU − 3)) / DL⌉
/// bound        = N × (MTU − 3) / (f × interval)            bytes per second
/// ```
///
/// It counts only the value bytes of full-size writes, so any protocol header a transfer puts
/// inside the value (the chunk's type, sequence number and CRC) is overhead measured against it.
public struct StreamingBound: Sendable, Hashable {
    /// The inter-frame space between packets, µs.
    public static let interFrameSpaceMicroseconds = 150.0
    /// L2CAP basic header bytes.
    public static let l2capHeaderBytes = 4
    /// ATT Write Command header bytes (opcode + handle).
    public static let attWriteHeaderBytes = 3

    /// The parameters.
    public let parameters: LinkParameters
    /// Airtime of one full data packet, µs.
    public let dataPacketMicroseconds: Double
    /// Airtime of an empty packet, µs.
    public let emptyPacketMicroseconds: Double
    /// One packet-plus-empty-reply exchange, µs.
    public let slotMicroseconds: Double
    /// Link-layer packets the central sends per event (N).
    public let packetsPerEvent: Int
    /// Link-layer fragments per full Write Command (f).
    public let fragmentsPerWrite: Int
    /// The bound, bytes of write value per second.
    public let bytesPerSecond: Double

    /// Computes the bound for `parameters`.
    public init(_ parameters: LinkParameters) {
        self.parameters = parameters
        let phy = parameters.phy
        let l2capPDU = StreamingBound.l2capHeaderBytes + StreamingBound.attWriteHeaderBytes + parameters.maxWriteValueLength
        let largest = min(parameters.dataLength, l2capPDU)
        dataPacketMicroseconds = StreamingBound.airtimeMicroseconds(payload: largest, phy: phy)
        emptyPacketMicroseconds = StreamingBound.airtimeMicroseconds(payload: 0, phy: phy)
        slotMicroseconds = dataPacketMicroseconds + emptyPacketMicroseconds + 2 * StreamingBound.interFrameSpaceMicroseconds
        let intervalMicroseconds = parameters.connectionIntervalMs * 1000
        packetsPerEvent = max(1, min(parameters.packetsPerEvent, Int(intervalMicroseconds / slotMicroseconds)))
        fragmentsPerWrite = (l2capPDU + parameters.dataLength - 1) / parameters.dataLength
        bytesPerSecond = Double(packetsPerEvent) * Double(parameters.maxWriteValueLength)
            / (Double(fragmentsPerWrite) * parameters.connectionIntervalMs / 1000)
    }

    /// Airtime of a link-layer packet carrying `payload` bytes, µs (unencrypted: no MIC).
    public static func airtimeMicroseconds(payload: Int, phy: LinkParameters.PHY) -> Double {
        Double(phy.preambleBytes + 4 + 2 + payload + 3) * phy.microsecondsPerByte
    }
}
