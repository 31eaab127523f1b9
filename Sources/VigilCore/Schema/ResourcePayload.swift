/// Payload of a `resource` event: CPU and memory of the process at one sampling point, and a
/// CPU block when the windowed average passed its threshold.
public struct ResourcePayload: Codable, Sendable, Hashable {
    /// Process CPU usage since the previous sample, in percent of one core (may exceed 100).
    public var cpuPercent: Double
    /// The busiest threads over the same interval, busiest first.
    public var threads: [ThreadUsage]?
    /// Memory the OS charges the app for: `phys_footprint` on Apple, RSS on Linux.
    public var memoryBytes: UInt64
    /// Resident set size, when known.
    public var rssBytes: UInt64?
    /// Proportional set size (Linux `smaps_rollup`), when known.
    public var pssBytes: UInt64?
    /// Present when this sample closed a window whose average CPU passed the threshold.
    public var cpuBlock: CPUBlock?

    public init(cpuPercent: Double, threads: [ThreadUsage]? = nil, memoryBytes: UInt64, rssBytes: UInt64? = nil,
                pssBytes: UInt64? = nil, cpuBlock: CPUBlock? = nil) {
        self.cpuPercent = cpuPercent
        self.threads = threads
        self.memoryBytes = memoryBytes
        self.rssBytes = rssBytes
        self.pssBytes = pssBytes
        self.cpuBlock = cpuBlock
    }
}

/// CPU usage of one thread over a sampling interval.
public struct ThreadUsage: Codable, Sendable, Hashable {
    /// Thread name, when it has one.
    public var name: String?
    /// OS thread id.
    public var id: UInt64
    /// Percent of one core.
    public var cpuPercent: Double

    public init(name: String?, id: UInt64, cpuPercent: Double) {
        self.name = name
        self.id = id
        self.cpuPercent = cpuPercent
    }
}

/// A window in which the process's average CPU usage stayed above the threshold
/// (Matrix reports 80% over a minute).
public struct CPUBlock: Codable, Sendable, Hashable {
    /// Window length in milliseconds.
    public var windowMs: Double
    /// Average CPU over the window, percent of one core.
    public var averagePercent: Double
    /// The threshold that was passed, percent of one core.
    public var thresholdPercent: Double

    public init(windowMs: Double, averagePercent: Double, thresholdPercent: Double) {
        self.windowMs = windowMs
        self.averagePercent = averagePercent
        self.thresholdPercent = thresholdPercent
    }
}
