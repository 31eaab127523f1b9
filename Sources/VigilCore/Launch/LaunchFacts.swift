/// What the runtime knows about how this launch came about; ``LaunchTimeline/classify(_:configuration:)``
/// turns it into a ``LaunchKind``.
public struct LaunchFacts: Sendable, Hashable, Codable {
    /// The OS started the process ahead of time (Apple's `ActivePrewarm` environment variable).
    public var isPrewarmed: Bool
    /// The launch created a new process; false when an existing process came back to the
    /// foreground.
    public var isNewProcess: Bool
    /// Whether the app's pages were still in the OS cache, when the runtime can tell directly;
    /// nil to decide from the time since the last launch.
    public var pagesCached: Bool?
    /// Seconds since the previous launch of the app ended, nil when unknown or first launch.
    public var secondsSinceLastLaunch: Double?
    /// The device rebooted since the previous launch (nothing can be cached).
    public var rebootedSinceLastLaunch: Bool

    /// Facts for one launch. Defaults describe a new, not prewarmed process with nothing known
    /// about the previous launch (a cold launch).
    public init(isPrewarmed: Bool = false, isNewProcess: Bool = true, pagesCached: Bool? = nil,
                secondsSinceLastLaunch: Double? = nil, rebootedSinceLastLaunch: Bool = false) {
        self.isPrewarmed = isPrewarmed
        self.isNewProcess = isNewProcess
        self.pagesCached = pagesCached
        self.secondsSinceLastLaunch = secondsSinceLastLaunch
        self.rebootedSinceLastLaunch = rebootedSinceLastLaunch
    }
}
