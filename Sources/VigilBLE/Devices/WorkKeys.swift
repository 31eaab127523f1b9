/// Session ("work") keys a payment server issues to a terminal, each encrypted under the
/// terminal's master key (16 bytes each, opaque to the app).
public struct WorkKeys: Sendable, Hashable {
    /// PIN encryption key.
    public var pinKey: [UInt8]
    /// MAC key.
    public var macKey: [UInt8]
    /// Track/data encryption key.
    public var dataKey: [UInt8]

    /// Keys.
    public init(pinKey: [UInt8], macKey: [UInt8], dataKey: [UInt8]) {
        self.pinKey = pinKey
        self.macKey = macKey
        self.dataKey = dataKey
    }
}

/// The 4-byte check values a terminal computes from loaded keys, compared with the server's
/// to prove the keys arrived intact.
public struct KeyCheckValues: Sendable, Hashable {
    /// For the PIN key.
    public var pin: [UInt8]
    /// For the MAC key.
    public var mac: [UInt8]
    /// For the data key.
    public var data: [UInt8]

    /// Check values.
    public init(pin: [UInt8], mac: [UInt8], data: [UInt8]) {
        self.pin = pin
        self.mac = mac
        self.data = data
    }
}
