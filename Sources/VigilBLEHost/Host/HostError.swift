/// Why the host could not do what it was asked.
public enum HostError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HCI channel broke.
    case channel(HCIChannelError)
    /// The controller refused or failed a command: opcode and HCI status code.
    case commandFailed(opcode: UInt16, status: UInt8)
    /// The controller did not answer a command in time.
    case commandTimeout(opcode: UInt16)
    /// The controller is not initialised (or failed to initialise).
    case notReady
    /// Another connection request is already pending (a controller creates one at a time).
    case busy
    /// No link to that peer.
    case notConnected

    public var description: String {
        switch self {
        case .channel(let error): return "HCI channel: \(error)"
        case .commandFailed(let opcode, let status):
            return "HCI command 0x\(String(opcode, radix: 16)) failed: \(HCIStatus.describe(status)) (0x\(String(status, radix: 16)))"
        case .commandTimeout(let opcode): return "HCI command 0x\(String(opcode, radix: 16)) timed out"
        case .notReady: return "controller not ready"
        case .busy: return "a connection request is already pending"
        case .notConnected: return "not connected"
        }
    }
}

/// HCI status and disconnect reason codes (Core spec Vol 1 Part F) the host names.
public enum HCIStatus {
    public static let success: UInt8 = 0x00
    public static let unknownCommand: UInt8 = 0x01
    public static let unknownConnectionIdentifier: UInt8 = 0x02
    public static let connectionTimeout: UInt8 = 0x08
    public static let remoteUserTerminated: UInt8 = 0x13
    public static let localHostTerminated: UInt8 = 0x16
    public static let unsupportedFeature: UInt8 = 0x11
    public static let connectionFailedToBeEstablished: UInt8 = 0x3E

    /// A short text for `code`.
    public static func describe(_ code: UInt8) -> String {
        switch code {
        case 0x00: return "success"
        case 0x01: return "unknown HCI command"
        case 0x02: return "unknown connection identifier"
        case 0x07: return "memory capacity exceeded"
        case 0x08: return "connection timeout"
        case 0x0C: return "command disallowed"
        case 0x11: return "unsupported feature or parameter value"
        case 0x12: return "invalid HCI command parameters"
        case 0x13: return "remote user terminated connection"
        case 0x14: return "remote device terminated connection (low resources)"
        case 0x15: return "remote device terminated connection (power off)"
        case 0x16: return "connection terminated by local host"
        case 0x1A: return "unsupported remote feature"
        case 0x22: return "LL response timeout"
        case 0x3B: return "unacceptable connection parameters"
        case 0x3E: return "connection failed to be established"
        default: return "HCI error"
        }
    }
}
