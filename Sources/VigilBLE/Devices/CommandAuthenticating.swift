/// A terminal family with an authenticated command mode: after
/// ``updateWorkKeys(_:authenticatingWith:trace:completion:)`` every command and answer on the
/// link carries a counter and an HMAC-SHA256 tag under a session key (docs/ble-protocol.md §4).
/// ``FramedTerminalAdapter`` has one; ``PaymentTerminal`` uses it when the server's verdict is
/// ``ServerVerdict/approvedWithAuthenticatedKeyUpdate(_:expectedCheckValues:macKey:)``.
public protocol CommandAuthenticating: DeviceAdapter {
    /// Whether commands on this link are authenticated now.
    var isAuthenticated: Bool { get }
    /// Loads work keys and derives the session key from `macKey` (the MAC work key in clear)
    /// and both ends' nonces; fails when the terminal's confirmation does not match.
    func updateWorkKeys(_ keys: WorkKeys, authenticatingWith macKey: [UInt8], trace: SpanContext?,
                        completion: @escaping (Result<KeyCheckValues, DeviceError>) -> Void)
}

extension FramedTerminalAdapter: CommandAuthenticating {}
