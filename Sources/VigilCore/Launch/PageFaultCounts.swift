/// Cumulative page faults of the process at one moment (Linux `getrusage` `ru_minflt` and
/// `ru_majflt`, or `/proc/self/stat` fields 10 and 12; Darwin `task_info` `faults`).
public struct PageFaultCounts: Sendable, Hashable, Codable {
    /// Faults served without I/O.
    public var minor: UInt64
    /// Faults that needed I/O.
    public var major: UInt64

    /// Counts with the given values.
    public init(minor: UInt64, major: UInt64) {
        self.minor = minor
        self.major = major
    }

    /// All faults.
    public var total: UInt64 { minor &+ major }
}
