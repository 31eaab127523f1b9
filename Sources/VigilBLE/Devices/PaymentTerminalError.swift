/// Why ``PaymentTerminal/connect(completion:)`` did not reach `connected`.
public enum PaymentTerminalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Already connecting or connected.
    case busy
    /// The link could not be established.
    case link(ConnectionError)
    /// The linked peer matches no registered terminal family.
    case unknownDevice(name: String?)
    /// A step's command failed.
    case step(PaymentTerminal.Step, DeviceError)
    /// The app's server refused the terminal.
    case serverRejected(reason: String)
    /// The server check itself failed (network, server error).
    case serverCheckFailed(reason: String)
    /// The terminal's key check values differ from the server's.
    case keyCheckMismatch
    /// The link went down during the chain.
    case linkLost
    /// ``PaymentTerminal/disconnect()`` was called during the chain.
    case cancelled

    public var description: String {
        switch self {
        case .busy: return "terminal already connecting or connected"
        case .link(let error): return "link: \(error)"
        case .unknownDevice(let name): return "no terminal family matches \(name ?? "the unnamed peer")"
        case .step(let step, let error): return "\(step.rawValue): \(error)"
        case .serverRejected(let reason): return "server rejected the terminal: \(reason)"
        case .serverCheckFailed(let reason): return "server check failed: \(reason)"
        case .keyCheckMismatch: return "key check values differ from the server's"
        case .linkLost: return "link lost during connection"
        case .cancelled: return "cancelled"
        }
    }
}

/// The app server's answer to a terminal it was shown.
public enum ServerVerdict: Sendable, Hashable {
    /// The terminal may be used as it is.
    case approved
    /// The terminal may be used after loading these keys; the terminal's check values must
    /// equal `expectedCheckValues` when given.
    case approvedWithKeyUpdate(WorkKeys, expectedCheckValues: KeyCheckValues?)
    /// As ``approvedWithKeyUpdate(_:expectedCheckValues:)``, and every later command must be
    /// authenticated with a session key derived from `macKey` — the MAC work key in clear, which
    /// the server sends the app over its own TLS connection and the link never carries. Needs
    /// a ``CommandAuthenticating`` family (else the key update step fails with
    /// ``DeviceError/authenticationUnsupported(vendor:)``).
    case approvedWithAuthenticatedKeyUpdate(WorkKeys, expectedCheckValues: KeyCheckValues?, macKey: [UInt8])
    /// The terminal must not be used.
    case rejected(reason: String)
}
