import VigilBLE

/// Everything the simulated link models beyond the radio parameters: how long each side's
/// host takes to react, the phone's Write Command buffer, advertising and discovery.
public struct SimulationParameters: Sendable, Hashable {
    /// PHY, data length, MTU, interval, packets per event.
    public var link: LinkParameters
    /// Phone side: from a packet's reception to the app's reaction reaching the controller
    /// (ms). A reaction can only use a connection event that starts after it.
    public var centralLatencyMs: Double
    /// Peer side: the firmware's turnaround from reception to queuing its answer (ms).
    public var peripheralLatencyMs: Double
    /// Write Commands the phone's stack buffers before `canSendWriteWithoutResponse` turns
    /// false (a Write Command issued beyond it is dropped silently, as on iOS).
    public var writeBufferCapacity: Int
    /// Advertising interval of simulated peers (ms).
    public var advertisingIntervalMs: Double
    /// Supervision timeout: how long the phone takes to notice a link that died silently (ms).
    public var supervisionTimeoutMs: Double
    /// ATT request/response exchanges service discovery takes.
    public var discoveryExchanges: Int

    /// Parameters; defaults model an iPhone talking to a responsive peer.
    public init(link: LinkParameters = LinkParameters(), centralLatencyMs: Double = 1, peripheralLatencyMs: Double = 1,
                writeBufferCapacity: Int = 10, advertisingIntervalMs: Double = 100, supervisionTimeoutMs: Double = 720,
                discoveryExchanges: Int = 4) {
        self.link = link
        self.centralLatencyMs = centralLatencyMs
        self.peripheralLatencyMs = peripheralLatencyMs
        self.writeBufferCapacity = max(1, writeBufferCapacity)
        self.advertisingIntervalMs = advertisingIntervalMs
        self.supervisionTimeoutMs = supervisionTimeoutMs
        self.discoveryExchanges = max(1, discoveryExchanges)
    }
}
