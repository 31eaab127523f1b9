import Foundation
import VigilCore

/// How many readings of process facts were skipped, and why. The SDK reports these instead of
/// failing: a missing or malformed `/proc` file costs one reading, never the app.
public struct ProcessFactsCounters: Sendable, Hashable {
    /// Files that could not be opened or read.
    public var unreadableFiles = 0
    /// Files whose text did not parse (or was too large).
    public var malformedFiles = 0
    /// Per-thread readings skipped because the thread list was longer than the bound.
    public var threadsBeyondLimit = 0

    /// All zero.
    public init() {}
}

/// Facts about the running process the detectors need: when it started, its CPU time, page
/// faults, memory and per-thread CPU time.
///
/// Linux: ``ProcFSProcessFacts`` (`/proc` through VigilCore's parsers, `getrusage`). Apple
/// platforms: `MachProcessFacts` (`sysctl`, `task_info`, `thread_info`). Every call is made
/// from the monitoring queue, never from the main thread, and returns nil (counted) rather than
/// throwing when the OS does not answer.
public protocol ProcessFactsSource: AnyObject, Sendable {
    /// When the kernel created this process (wall clock), nil when it cannot be read.
    func processStartTime() -> Date?
    /// User plus system CPU time of the whole process so far, in seconds.
    func cpuSeconds() -> Double?
    /// Cumulative page faults of the process.
    func pageFaults() -> PageFaultCounts?
    /// Memory the OS charges the app for (Linux RSS from `/proc/self/status`, Darwin
    /// `phys_footprint`), in bytes; cheaper than a full ``resourceSample(at:threadLimit:)``.
    func memoryBytes() -> UInt64?
    /// One CPU and memory reading for ``ResourceWatch`` at `instant`, with at most
    /// `threadLimit` threads; nil when the CPU time or the memory could not be read.
    func resourceSample(at instant: MonotonicInstant, threadLimit: Int) -> ResourceSample?
    /// What was skipped so far.
    var counters: ProcessFactsCounters { get }
}
