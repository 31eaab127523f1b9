/// What the simulated radio did and which faults it injected, for assertions and the bench.
public struct SimulationStatistics: Sendable, Hashable {
    /// Connection events that carried at least one packet.
    public var connectionEvents = 0
    /// Link-layer packets the phone sent.
    public var linkPacketsFromCentral = 0
    /// Link-layer packets the peers sent.
    public var linkPacketsFromPeripheral = 0
    /// Write Commands issued while the phone's buffer was full (dropped, as iOS does). A
    /// correct sender keeps this at zero.
    public var writeCommandsIntoFullBuffer = 0
    /// Writes issued on a link that had already died (before the phone noticed).
    public var writesOnDeadLink = 0
    /// Values dropped by the loss fault.
    public var valuesLost = 0
    /// Values corrupted.
    public var valuesCorrupted = 0
    /// Values delivered twice.
    public var valuesDuplicated = 0
    /// Values held back so that later ones overtook them.
    public var valuesReordered = 0
    /// Values delayed.
    public var valuesDelayed = 0
    /// Links dropped by disconnect faults.
    public var disconnectsInjected = 0
    /// Connection requests failed by the connect fault.
    public var connectFailuresInjected = 0
    /// Notifications refused (not subscribed, too long, link down).
    public var notificationsRefused = 0
}
