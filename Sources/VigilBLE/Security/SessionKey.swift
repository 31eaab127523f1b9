/// The key that authenticates every command and response of one link session, derived at the
/// key update from the terminal's MAC work key and both ends' nonces (docs/ble-protocol.md §4).
///
/// `K = HKDF-SHA256(IKM = MAC work key in clear, salt = phone nonce ‖ terminal nonce,
/// info = "VigilBLE command key v1", L = 32)`. The MAC key never crosses the link in clear (the
/// phone gets it from its server over TLS; the terminal decrypts the encrypted copy the key
/// update carries under its master key), so someone who recorded the key update cannot derive
/// `K`; fresh nonces on both sides make every session's key new, so nothing recorded in one
/// session verifies in another. A value; the bytes are held in memory as long as it lives.
public struct SessionKey: Sendable, Hashable, CustomStringConvertible {
    /// Nonce length on both sides, in bytes.
    public static let nonceLength = 16
    /// Confirmation tag length, in bytes.
    public static let confirmationLength = 16
    /// HKDF's `info`.
    public static let info = Array("VigilBLE command key v1".utf8)
    /// The label the key confirmation starts with.
    public static let confirmationLabel = Array("VigilBLE key confirmation".utf8)

    /// The 32 key bytes.
    public let bytes: [UInt8]

    /// The session key for a MAC work key (any length, 16 bytes in practice) and two nonces.
    public init(macKey: [UInt8], phoneNonce: [UInt8], terminalNonce: [UInt8]) {
        bytes = HKDFSHA256.deriveKey(inputKeyingMaterial: macKey, salt: phoneNonce + terminalNonce, info: Self.info, length: 32)
    }

    /// A session key from its bytes (tests, a firmware's stored key).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Never the bytes: a key printed into a log would be a key given away.
    public var description: String { "SessionKey(\(bytes.count) bytes)" }

    /// The terminal's proof that it derived the same key, sent in the key update's answer:
    /// `HMAC-SHA256(K, label ‖ phone nonce ‖ terminal nonce ‖ check values)`, first 16 bytes.
    public func confirmation(phoneNonce: [UInt8], terminalNonce: [UInt8], checkValues: KeyCheckValues) -> [UInt8] {
        let message = Self.confirmationLabel + phoneNonce + terminalNonce + checkValues.pin + checkValues.mac + checkValues.data
        return Array(HMACSHA256.authenticationCode(for: message, key: bytes).prefix(Self.confirmationLength))
    }
}
