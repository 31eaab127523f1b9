/// The HCI events the host acts on, decoded (Core spec Vol 4 Part E 7.7). Events it has no use
/// for decode as ``unhandled(code:parameters:)``; malformed ones throw.
public enum HCIEvent: Sendable, Hashable {
    /// HCI_Command_Complete: how many commands the controller accepts now, the command, and its
    /// return parameters (the first byte is the status for every command the host sends).
    case commandComplete(credits: UInt8, opcode: UInt16, returnParameters: [UInt8])
    /// HCI_Command_Status: the command was accepted (status 0) or refused; its outcome comes later.
    case commandStatus(status: UInt8, credits: UInt8, opcode: UInt16)
    /// HCI_Disconnection_Complete.
    case disconnectionComplete(status: UInt8, handle: UInt16, reason: UInt8)
    /// HCI_Number_Of_Completed_Packets: ACL buffers freed per connection handle.
    case numberOfCompletedPackets([CompletedPackets])
    /// HCI_Hardware_Error.
    case hardwareError(UInt8)
    /// LE Connection Complete, legacy or enhanced.
    case leConnectionComplete(LEConnectionComplete)
    /// LE Advertising Report or LE Extended Advertising Report: one or more advertisements.
    case leAdvertisingReport([LEAdvertisingReport])
    /// LE Connection Update Complete.
    case leConnectionUpdateComplete(status: UInt8, handle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
    /// LE Remote Connection Parameter Request (the peer's link layer asks for new parameters).
    case leRemoteConnectionParameterRequest(handle: UInt16, parameters: ConnectionParameters)
    /// LE Data Length Change.
    case leDataLengthChange(handle: UInt16, maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16, maxRxTime: UInt16)
    /// LE PHY Update Complete (1: 1M, 2: 2M, 3: Coded).
    case lePHYUpdateComplete(status: UInt8, handle: UInt16, txPHY: UInt8, rxPHY: UInt8)
    /// Any other event, undecoded.
    case unhandled(code: UInt8, parameters: [UInt8])

    /// Decodes an event packet's code and parameters. Never traps.
    public static func decode(code: UInt8, parameters: [UInt8]) throws(HostDecodingError) -> HCIEvent {
        var r = PayloadReader(parameters)
        switch code {
        case 0x0E:
            let credits = try r.u8("Num_HCI_Command_Packets")
            let opcode = try r.u16("Command_Opcode")
            return .commandComplete(credits: credits, opcode: opcode, returnParameters: r.rest())
        case 0x0F:
            let status = try r.u8("Status")
            let credits = try r.u8("Num_HCI_Command_Packets")
            return .commandStatus(status: status, credits: credits, opcode: try r.u16("Command_Opcode"))
        case 0x05:
            let status = try r.u8("Status")
            let handle = try r.u16("Connection_Handle") & 0x0FFF
            return .disconnectionComplete(status: status, handle: handle, reason: try r.u8("Reason"))
        case 0x10:
            return .hardwareError(try r.u8("Hardware_Code"))
        case 0x13:
            let count = Int(try r.u8("Num_Handles"))
            var entries: [CompletedPackets] = []
            for _ in 0..<count {
                let handle = try r.u16("Connection_Handle") & 0x0FFF
                entries.append(CompletedPackets(handle: handle, count: try r.u16("Num_Completed_Packets")))
            }
            return .numberOfCompletedPackets(entries)
        case 0x3E:
            return try decodeLEMeta(&r)
        default:
            return .unhandled(code: code, parameters: parameters)
        }
    }

    private static func decodeLEMeta(_ r: inout PayloadReader) throws(HostDecodingError) -> HCIEvent {
        let subevent = try r.u8("Subevent_Code")
        switch subevent {
        case 0x01, 0x0A:
            let status = try r.u8("Status")
            let handle = try r.u16("Connection_Handle") & 0x0FFF
            let role = try r.u8("Role")
            let kindRaw = try r.u8("Peer_Address_Type")
            let address = try r.take(6, "Peer_Address")
            if subevent == 0x0A { _ = try r.take(12, "Local/Peer_Resolvable_Private_Address") }
            let interval = try r.u16("Connection_Interval")
            let latency = try r.u16("Peripheral_Latency")
            let timeout = try r.u16("Supervision_Timeout")
            _ = try r.u8("Central_Clock_Accuracy")
            let kind = DeviceAddress.Kind(rawValue: kindRaw) ?? .random
            return .leConnectionComplete(LEConnectionComplete(
                status: status, handle: handle, isCentral: role == 0,
                peer: DeviceAddress(wireBytes: address, kind: kind),
                interval: interval, latency: latency, supervisionTimeout: timeout))
        case 0x02:
            let count = Int(try r.u8("Num_Reports"))
            var reports: [LEAdvertisingReport] = []
            for _ in 0..<count {
                let type = try r.u8("Event_Type")
                let kindRaw = try r.u8("Address_Type")
                let address = try r.take(6, "Address")
                let length = Int(try r.u8("Data_Length"))
                guard length <= 31 else { throw .badLength(field: "Data_Length", value: length) }
                let data = try r.take(length, "Data")
                let rssi = try r.i8("RSSI")
                reports.append(LEAdvertisingReport(
                    eventType: type, address: DeviceAddress(wireBytes: address, kind: DeviceAddress.Kind(rawValue: kindRaw) ?? .random),
                    data: data, rssi: Int(rssi)))
            }
            return .leAdvertisingReport(reports)
        case 0x0D:
            // LE Extended Advertising Report: what controllers that support extended advertising
            // may send even for a legacy scan (Bumble's does).
            let count = Int(try r.u8("Num_Reports"))
            var reports: [LEAdvertisingReport] = []
            for _ in 0..<count {
                let type = try r.u16("Event_Type")
                let kindRaw = try r.u8("Address_Type")
                let address = try r.take(6, "Address")
                _ = try r.take(4, "Primary_PHY, Secondary_PHY, Advertising_SID, TX_Power")
                let rssi = try r.i8("RSSI")
                _ = try r.take(9, "Periodic_Advertising_Interval, Direct_Address_Type, Direct_Address")
                let length = Int(try r.u8("Data_Length"))
                let data = try r.take(length, "Data")
                // As a legacy event type: 4 scan response, 0 connectable, 3 neither.
                let legacyType: UInt8 = type & 0x08 != 0 ? 4 : (type & 0x01 != 0 ? 0 : 3)
                reports.append(LEAdvertisingReport(
                    eventType: legacyType, address: DeviceAddress(wireBytes: address, kind: DeviceAddress.Kind(rawValue: kindRaw & 0x03) ?? .random),
                    data: data, rssi: Int(rssi)))
            }
            return .leAdvertisingReport(reports)
        case 0x03:
            let status = try r.u8("Status")
            let handle = try r.u16("Connection_Handle") & 0x0FFF
            let interval = try r.u16("Connection_Interval")
            let latency = try r.u16("Peripheral_Latency")
            return .leConnectionUpdateComplete(status: status, handle: handle, interval: interval, latency: latency,
                                               supervisionTimeout: try r.u16("Supervision_Timeout"))
        case 0x06:
            let handle = try r.u16("Connection_Handle") & 0x0FFF
            let min = try r.u16("Interval_Min")
            let max = try r.u16("Interval_Max")
            let latency = try r.u16("Max_Latency")
            let timeout = try r.u16("Timeout")
            return .leRemoteConnectionParameterRequest(handle: handle, parameters: ConnectionParameters(
                intervalMin: min, intervalMax: max, latency: latency, supervisionTimeout: timeout))
        case 0x07:
            let handle = try r.u16("Connection_Handle") & 0x0FFF
            let txOctets = try r.u16("Max_TX_Octets")
            let txTime = try r.u16("Max_TX_Time")
            let rxOctets = try r.u16("Max_RX_Octets")
            return .leDataLengthChange(handle: handle, maxTxOctets: txOctets, maxTxTime: txTime, maxRxOctets: rxOctets,
                                       maxRxTime: try r.u16("Max_RX_Time"))
        case 0x0C:
            let status = try r.u8("Status")
            let handle = try r.u16("Connection_Handle") & 0x0FFF
            let tx = try r.u8("TX_PHY")
            return .lePHYUpdateComplete(status: status, handle: handle, txPHY: tx, rxPHY: try r.u8("RX_PHY"))
        default:
            return .unhandled(code: 0x3E, parameters: [subevent] + r.rest())
        }
    }
}

/// An LE Connection Complete (or Enhanced Connection Complete) event.
public struct LEConnectionComplete: Sendable, Hashable {
    /// 0 on success, else the HCI error code.
    public var status: UInt8
    /// The new connection's handle.
    public var handle: UInt16
    /// Whether this side is the central.
    public var isCentral: Bool
    /// The peer.
    public var peer: DeviceAddress
    /// Connection interval, 1.25 ms units.
    public var interval: UInt16
    /// Peripheral latency, events.
    public var latency: UInt16
    /// Supervision timeout, 10 ms units.
    public var supervisionTimeout: UInt16
}

/// One advertisement from an LE Advertising Report.
public struct LEAdvertisingReport: Sendable, Hashable {
    /// 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 SCAN_RSP.
    public var eventType: UInt8
    /// The advertiser.
    public var address: DeviceAddress
    /// Advertising (or scan response) data, ≤ 31 bytes.
    public var data: [UInt8]
    /// Signal strength, dBm (127: unavailable).
    public var rssi: Int
}

/// One entry of a Number Of Completed Packets event: ACL buffers freed on one connection.
public struct CompletedPackets: Sendable, Hashable {
    /// The connection handle.
    public var handle: UInt16
    /// How many packets the controller has finished with.
    public var count: UInt16

    /// An entry.
    public init(handle: UInt16, count: UInt16) {
        self.handle = handle
        self.count = count
    }
}
