/// An HCI command: opcode and encoded parameters, with builders for the commands the host uses
/// (Core spec Vol 4 Part E 7). Pure values: building one has no effect.
public struct HCICommand: Sendable, Hashable {
    /// OGF << 10 | OCF.
    public var opcode: UInt16
    /// Encoded parameters.
    public var parameters: [UInt8]

    /// A command.
    public init(opcode: UInt16, parameters: [UInt8] = []) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// The packet to send.
    public var packet: HCIPacket { .command(opcode: opcode, parameters: parameters) }

    /// Opcodes used by the host.
    public enum Opcode {
        public static let disconnect: UInt16 = 0x0406
        public static let setEventMask: UInt16 = 0x0C01
        public static let reset: UInt16 = 0x0C03
        public static let readLocalVersion: UInt16 = 0x1001
        public static let readLocalSupportedCommands: UInt16 = 0x1002
        public static let readBufferSize: UInt16 = 0x1005
        public static let readBDAddr: UInt16 = 0x1009
        public static let readRSSI: UInt16 = 0x1405
        public static let leSetEventMask: UInt16 = 0x2001
        public static let leReadBufferSize: UInt16 = 0x2002
        public static let leReadLocalSupportedFeatures: UInt16 = 0x2003
        public static let leSetRandomAddress: UInt16 = 0x2005
        public static let leSetScanParameters: UInt16 = 0x200B
        public static let leSetScanEnable: UInt16 = 0x200C
        public static let leCreateConnection: UInt16 = 0x200D
        public static let leCreateConnectionCancel: UInt16 = 0x200E
        public static let leConnectionUpdate: UInt16 = 0x2013
        public static let leRemoteConnectionParameterRequestReply: UInt16 = 0x2020
        public static let leRemoteConnectionParameterRequestNegativeReply: UInt16 = 0x2021
        public static let leSetDataLength: UInt16 = 0x2022
        public static let leSetPHY: UInt16 = 0x2032
    }

    /// HCI_Reset.
    public static let reset = HCICommand(opcode: Opcode.reset)
    /// HCI_Read_Buffer_Size (BR/EDR buffers, shared with LE when LE reports none).
    public static let readBufferSize = HCICommand(opcode: Opcode.readBufferSize)
    /// HCI_Read_BD_ADDR.
    public static let readBDAddr = HCICommand(opcode: Opcode.readBDAddr)
    /// HCI_LE_Read_Buffer_Size [v1].
    public static let leReadBufferSize = HCICommand(opcode: Opcode.leReadBufferSize)
    /// HCI_LE_Read_Local_Supported_Features.
    public static let leReadLocalSupportedFeatures = HCICommand(opcode: Opcode.leReadLocalSupportedFeatures)
    /// HCI_Read_Local_Supported_Commands (a 64-octet bit mask).
    public static let readLocalSupportedCommands = HCICommand(opcode: Opcode.readLocalSupportedCommands)
    /// HCI_LE_Create_Connection_Cancel.
    public static let leCreateConnectionCancel = HCICommand(opcode: Opcode.leCreateConnectionCancel)

    /// HCI_Set_Event_Mask; `mask` bit n enables event n+1 (bit 61: LE Meta).
    public static func setEventMask(_ mask: UInt64) -> HCICommand {
        HCICommand(opcode: Opcode.setEventMask, parameters: littleEndian(mask))
    }

    /// HCI_LE_Set_Event_Mask; bit n enables LE subevent n+1.
    public static func leSetEventMask(_ mask: UInt64) -> HCICommand {
        HCICommand(opcode: Opcode.leSetEventMask, parameters: littleEndian(mask))
    }

    /// HCI_LE_Set_Random_Address.
    public static func leSetRandomAddress(_ address: DeviceAddress) -> HCICommand {
        HCICommand(opcode: Opcode.leSetRandomAddress, parameters: address.wireBytes)
    }

    /// HCI_LE_Set_Scan_Parameters; interval and window in 0.625 ms units.
    public static func leSetScanParameters(active: Bool, interval: UInt16, window: UInt16,
                                           ownAddress: DeviceAddress.Kind = .publicDevice) -> HCICommand {
        var p: [UInt8] = [active ? 1 : 0]
        p.appendLE(interval)
        p.appendLE(window)
        p.append(ownAddress.rawValue)
        p.append(0x00) // accept all advertisements
        return HCICommand(opcode: Opcode.leSetScanParameters, parameters: p)
    }

    /// HCI_LE_Set_Scan_Enable.
    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommand {
        HCICommand(opcode: Opcode.leSetScanEnable, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    /// HCI_LE_Create_Connection to `peer` with `parameters`; the scan interval/window are in
    /// 0.625 ms units.
    public static func leCreateConnection(peer: DeviceAddress, parameters: ConnectionParameters,
                                          scanInterval: UInt16 = 0x0060, scanWindow: UInt16 = 0x0060,
                                          ownAddress: DeviceAddress.Kind = .publicDevice) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(scanInterval)
        p.appendLE(scanWindow)
        p.append(0x00) // use the peer address, not the filter accept list
        p.append(peer.kind.rawValue & 0x01)
        p += peer.wireBytes
        p.append(ownAddress.rawValue)
        p += parameters.encoded
        return HCICommand(opcode: Opcode.leCreateConnection, parameters: p)
    }

    /// HCI_Disconnect with `reason` (0x13: remote user terminated connection).
    public static func disconnect(handle: UInt16, reason: UInt8 = 0x13) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(handle)
        p.append(reason)
        return HCICommand(opcode: Opcode.disconnect, parameters: p)
    }

    /// HCI_LE_Connection_Update.
    public static func leConnectionUpdate(handle: UInt16, parameters: ConnectionParameters) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(handle)
        p += parameters.encoded
        return HCICommand(opcode: Opcode.leConnectionUpdate, parameters: p)
    }

    /// HCI_LE_Remote_Connection_Parameter_Request_Reply (accepts the peer's request).
    public static func leRemoteConnectionParameterRequestReply(handle: UInt16, parameters: ConnectionParameters) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(handle)
        p += parameters.encoded
        return HCICommand(opcode: Opcode.leRemoteConnectionParameterRequestReply, parameters: p)
    }

    /// HCI_LE_Set_Data_Length: asks the link layer for longer packets (octets 27...251,
    /// time 328...17040 µs).
    public static func leSetDataLength(handle: UInt16, txOctets: UInt16, txTime: UInt16) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(handle)
        p.appendLE(txOctets)
        p.appendLE(txTime)
        return HCICommand(opcode: Opcode.leSetDataLength, parameters: p)
    }

    /// HCI_LE_Set_PHY preferring the 2M PHY both ways.
    public static func leSetPHY2M(handle: UInt16) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(handle)
        p.append(0x00) // both TX and RX preferences given
        p.append(0x02) // TX: LE 2M
        p.append(0x02) // RX: LE 2M
        p.appendLE(0x0000)
        return HCICommand(opcode: Opcode.leSetPHY, parameters: p)
    }

    /// HCI_Read_RSSI.
    public static func readRSSI(handle: UInt16) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(handle)
        return HCICommand(opcode: Opcode.readRSSI, parameters: p)
    }

    private static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

/// LE connection parameters in HCI units.
public struct ConnectionParameters: Sendable, Hashable {
    /// Minimum connection interval, 1.25 ms units (6...3200).
    public var intervalMin: UInt16
    /// Maximum connection interval, 1.25 ms units.
    public var intervalMax: UInt16
    /// Peripheral latency, in connection events.
    public var latency: UInt16
    /// Supervision timeout, 10 ms units (10...3200).
    public var supervisionTimeout: UInt16
    /// Minimum connection event length, 0.625 ms units.
    public var minCELength: UInt16
    /// Maximum connection event length, 0.625 ms units.
    public var maxCELength: UInt16

    /// Parameters.
    public init(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, supervisionTimeout: UInt16,
                minCELength: UInt16 = 0, maxCELength: UInt16 = 0) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.minCELength = minCELength
        self.maxCELength = maxCELength
    }

    /// 15 ms interval, no latency, 4 s supervision timeout: what a phone asks for a fast link.
    public static let fast = ConnectionParameters(intervalMin: 12, intervalMax: 12, latency: 0, supervisionTimeout: 400)

    var encoded: [UInt8] {
        var p: [UInt8] = []
        for value in [intervalMin, intervalMax, latency, supervisionTimeout, minCELength, maxCELength] { p.appendLE(value) }
        return p
    }
}
