/// The network the device is on, as far as upload policy cares.
public struct NetworkPath: Sendable, Hashable {
    /// Whether any route exists.
    public var isAvailable: Bool
    /// Whether traffic may cost the user (cellular, a hotspot, Low Data Mode).
    public var isMetered: Bool

    /// A path with the given properties.
    public init(isAvailable: Bool, isMetered: Bool) {
        self.isAvailable = isAvailable
        self.isMetered = isMetered
    }

    /// Available and unmetered.
    public static let unmetered = NetworkPath(isAvailable: true, isMetered: false)
}

/// Tells the uploader about the current network path and its changes. Apple platforms use
/// `PathMonitorNetworkProvider` (`NWPathMonitor`); elsewhere ``UnmeteredNetworkProvider``.
public protocol NetworkPathProvider: Sendable {
    /// The path now.
    var currentPath: NetworkPath { get }
    /// Registers the one handler called (on any thread) when the path changes.
    func onChange(_ handler: @escaping @Sendable (NetworkPath) -> Void)
}

/// A network that is always there and never metered: Linux servers and desktops.
public struct UnmeteredNetworkProvider: NetworkPathProvider {
    /// The provider for a network that is always unmetered.
    public init() {}
    public var currentPath: NetworkPath { .unmetered }
    public func onChange(_ handler: @escaping @Sendable (NetworkPath) -> Void) {}
}
