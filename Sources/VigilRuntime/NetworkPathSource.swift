/// The kind of network the device is on, as events report it in `context.network`.
public enum NetworkPathKind: String, Sendable, Hashable, CaseIterable {
    /// Wi-Fi (a wireless interface on Linux).
    case wifi
    /// A cellular radio.
    case cellular
    /// Ethernet, or any other non-loopback interface that is up.
    case wired
    /// No interface that leads out is up.
    case none
    /// The OS did not say.
    case unknown
}

/// The current network path: its kind and whether the OS considers it metered.
public struct NetworkPathStatus: Sendable, Hashable {
    /// What kind of link carries traffic.
    public var kind: NetworkPathKind
    /// Whether traffic costs money (cellular, a personal hotspot); the uploader of a later
    /// issue holds back large batches on expensive paths.
    public var isExpensive: Bool

    /// A path of `kind`, metered or not.
    public init(kind: NetworkPathKind, isExpensive: Bool) {
        self.kind = kind
        self.isExpensive = isExpensive
    }
}

/// Tells the SDK which network the device is on.
///
/// Linux: ``SysfsNetworkPath`` (interfaces under `/sys/class/net`; never metered). Apple
/// platforms: `PathMonitorNetworkPath` (`NWPathMonitor`).
public protocol NetworkPathSource: AnyObject, Sendable {
    /// The path as last observed. Cheap; call from the monitoring queue.
    func currentPath() -> NetworkPathStatus
}
