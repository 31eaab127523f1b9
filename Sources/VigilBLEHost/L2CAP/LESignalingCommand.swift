/// A command on the LE signaling channel (CID 5, Core spec Vol 3 Part A 4): the host answers a
/// peripheral's Connection Parameter Update Request and rejects everything else it does not
/// implement.
public struct LESignalingCommand: Sendable, Hashable {
    /// Command codes the host uses.
    public enum Code {
        public static let commandReject: UInt8 = 0x01
        public static let connectionParameterUpdateRequest: UInt8 = 0x12
        public static let connectionParameterUpdateResponse: UInt8 = 0x13
    }

    /// The command code.
    public var code: UInt8
    /// Matches a response to its request.
    public var identifier: UInt8
    /// The command's data.
    public var data: [UInt8]

    /// A command.
    public init(code: UInt8, identifier: UInt8, data: [UInt8]) {
        self.code = code
        self.identifier = identifier
        self.data = data
    }

    /// Decodes one command from a CID 5 payload (LE allows one command per PDU).
    public static func decode(_ payload: [UInt8]) throws(HostDecodingError) -> LESignalingCommand {
        var r = PayloadReader(payload)
        let code = try r.u8("Code")
        let identifier = try r.u8("Identifier")
        let length = Int(try r.u16("Length"))
        return LESignalingCommand(code: code, identifier: identifier, data: try r.take(length, "Data"))
    }

    /// The encoded command.
    public var bytes: [UInt8] {
        var out: [UInt8] = [code, identifier]
        out.appendLE(UInt16(truncatingIfNeeded: data.count))
        return out + data
    }

    /// The parameters of a Connection Parameter Update Request, if this is one.
    public func connectionParameterUpdate() throws(HostDecodingError) -> ConnectionParameters? {
        guard code == Code.connectionParameterUpdateRequest else { return nil }
        var r = PayloadReader(data)
        let min = try r.u16("Interval Min")
        let max = try r.u16("Interval Max")
        let latency = try r.u16("Latency")
        return ConnectionParameters(intervalMin: min, intervalMax: max, latency: latency,
                                    supervisionTimeout: try r.u16("Timeout Multiplier"))
    }

    /// Connection Parameter Update Response: accepted (result 0) or rejected (1).
    public static func connectionParameterUpdateResponse(identifier: UInt8, accepted: Bool) -> LESignalingCommand {
        var data: [UInt8] = []
        data.appendLE(accepted ? 0 : 1)
        return LESignalingCommand(code: Code.connectionParameterUpdateResponse, identifier: identifier, data: data)
    }

    /// Command Reject, reason 0: command not understood.
    public static func commandNotUnderstood(identifier: UInt8) -> LESignalingCommand {
        LESignalingCommand(code: Code.commandReject, identifier: identifier, data: [0x00, 0x00])
    }
}
