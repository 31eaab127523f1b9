/// Callbacks a client of a ``BLEConnection`` registers (a transfer, a command channel, a UI).
/// Each runs on the connection's scheduler; any may be `nil`.
public struct ConnectionObserver {
    /// The state changed.
    public var stateChanged: ((ConnectionState) -> Void)?
    /// A notification arrived on a characteristic.
    public var valueReceived: ((BLEUUID, [UInt8]) -> Void)?
    /// The Write Command buffer has room again.
    public var readyToWrite: (() -> Void)?

    /// An observer.
    public init(stateChanged: ((ConnectionState) -> Void)? = nil, valueReceived: ((BLEUUID, [UInt8]) -> Void)? = nil,
                readyToWrite: (() -> Void)? = nil) {
        self.stateChanged = stateChanged
        self.valueReceived = valueReceived
        self.readyToWrite = readyToWrite
    }
}

/// Identifies a registered observer, to remove it.
public struct ObserverToken: Sendable, Hashable {
    let id: Int
}
