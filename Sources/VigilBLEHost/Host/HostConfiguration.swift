/// How the host sets links up.
public struct HostConfiguration: Sendable, Hashable {
    /// The ATT MTU offered in the MTU exchange (23...517; 247 fills one 251-octet LL packet).
    public var preferredMTU = 247
    /// Connection parameters asked for when connecting.
    public var connectionParameters = ConnectionParameters.fast
    /// Ask for 251-octet link-layer packets when the controller supports Data Length Extension.
    public var requestDataLengthExtension = true
    /// Ask for the 2M PHY when the controller supports it.
    public var request2MPHY = true
    /// The ATT transaction timeout (the spec's 30 s; tests shorten it or run on virtual time).
    public var attTransactionTimeoutMs = ATTClient.transactionTimeoutMs
    /// How long the controller may take to answer a command.
    public var commandTimeoutMs = 10_000.0
    /// The static random address this side uses when scanning and connecting; a fresh one is
    /// made at start when nil. (Bumble's virtual link routes LE data by random address, and
    /// phones connect from random addresses too.)
    public var randomAddress: DeviceAddress?
    /// Active scanning (scan requests, so scan responses with names and UUIDs arrive).
    public var activeScan = true

    /// The defaults.
    public init() {}
}
