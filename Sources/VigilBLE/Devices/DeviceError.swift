/// Why a terminal command failed.
public enum DeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link was not ready.
    case notReady(state: String)
    /// No response within the command's timeout.
    case timedOut(command: String, afterMs: Double)
    /// The link went down while the command was outstanding.
    case linkLost(command: String)
    /// The request could not be written.
    case writeFailed(command: String, ConnectionError)
    /// The terminal answered with a non-zero status.
    case rejected(command: String, status: UInt8)
    /// The response did not parse.
    case malformedResponse(command: String, reason: String)
    /// The command was cancelled (by ``DeviceAdapter/cancel(trace:completion:)`` or a disconnect).
    case cancelled(command: String)
    /// The command was refused as unauthenticated and not acted on: by the terminal (status
    /// 0xA0…0xA3), or by the phone before sending it (its counter is exhausted).
    case authenticationRejected(command: String, CommandAuthenticationError)
    /// The phone refused the terminal's answer (or key update) as unauthenticated and did not use it.
    case unauthenticatedResponse(command: String, CommandAuthenticationError)
    /// The terminal family has no authenticated command mode.
    case authenticationUnsupported(vendor: String)

    /// What a response's status byte means, in both terminal families: nil for 0 (OK),
    /// ``cancelled(command:)`` for 6, ``authenticationRejected(command:_:)`` for 0xA0…0xA3,
    /// ``rejected(command:status:)`` for anything else.
    public init?(status: UInt8, command: TerminalCommand) {
        switch status {
        case 0: return nil
        case 0x06: self = .cancelled(command: command.name)
        case 0xA0...0xA3: self = .authenticationRejected(command: command.name, CommandAuthenticationError(status: status) ?? .badTag)
        default: self = .rejected(command: command.name, status: status)
        }
    }

    public var description: String {
        switch self {
        case .notReady(let state): return "terminal link not ready (\(state))"
        case .timedOut(let command, let ms): return "\(command): no response in \(Int(ms)) ms"
        case .linkLost(let command): return "\(command): link lost"
        case .writeFailed(let command, let error): return "\(command): write failed: \(error)"
        case .rejected(let command, let status): return "\(command): terminal status 0x\(String(status, radix: 16))"
        case .malformedResponse(let command, let reason): return "\(command): malformed response: \(reason)"
        case .cancelled(let command): return "\(command): cancelled"
        case .authenticationRejected(let command, let error): return "\(command): refused as unauthenticated: \(error)"
        case .unauthenticatedResponse(let command, let error): return "\(command): answer refused: \(error)"
        case .authenticationUnsupported(let vendor): return "\(vendor) terminals have no authenticated command mode"
        }
    }
}
