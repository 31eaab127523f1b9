/// One reading of the process's CPU and memory, as the runtime takes it every sampling interval.
public struct ResourceSample: Sendable, Hashable {
    /// When the reading was taken (monotonic).
    public var instant: MonotonicInstant
    /// User plus system CPU time of the whole process since it started, in seconds.
    public var processCPUSeconds: Double
    /// Per-thread cumulative CPU times (may be empty, or a subset when the list is bounded).
    public var threads: [ThreadCPUTime]
    /// Memory the OS charges the app for: `phys_footprint` on Apple, RSS on Linux, in bytes.
    public var memoryBytes: UInt64
    /// Resident set size in bytes, when known.
    public var rssBytes: UInt64?
    /// Proportional set size in bytes (Linux `smaps_rollup`), when known.
    public var pssBytes: UInt64?

    /// A reading with the given values.
    public init(instant: MonotonicInstant, processCPUSeconds: Double, threads: [ThreadCPUTime] = [],
                memoryBytes: UInt64, rssBytes: UInt64? = nil, pssBytes: UInt64? = nil) {
        self.instant = instant
        self.processCPUSeconds = processCPUSeconds
        self.threads = threads
        self.memoryBytes = memoryBytes
        self.rssBytes = rssBytes
        self.pssBytes = pssBytes
    }
}
