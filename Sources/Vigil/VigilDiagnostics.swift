import VigilCore
import VigilRuntime

/// What the SDK saw, skipped and dropped since `Vigil.start(_:)`: the detectors' counters and
/// the adapters'. Nothing is lost silently; this is where it is counted.
public struct VigilDiagnostics: Sendable, Hashable {
    /// The session id events carry.
    public var session: String
    /// Hang detector counters (bad inputs, suspensions, slow turns, hangs by outcome).
    public var hang: HangDetectorCounters
    /// Frame monitor counters.
    public var frames: FrameMonitorCounters
    /// Launch timeline counters; nil when the launch could not be measured.
    public var launch: LaunchTimelineCounters?
    /// Resource watch counters.
    public var resource: ResourceWatchCounters
    /// Main-thread sampler totals (timeouts, coalesced requests, late answers).
    public var sampler: ThreadSamplerCounters
    /// Why main-thread sampling is off, when it is.
    public var samplerUnavailable: String?
    /// Process-facts readings skipped (missing or malformed `/proc` files).
    public var processFacts: ProcessFactsCounters
    /// Run-loop activities and frames the main thread could not hand over (ring full).
    public var droppedActivities: UInt64
    public var droppedFrames: UInt64
    /// Events handed to the sink, and events the sanitizer had to change.
    public var eventsEmitted: Int
    public var eventsSanitized: Int
    /// Watchdog ticks processed.
    public var ticks: UInt64
    /// CPU time of the watchdog thread, which runs the monitoring queue's ticks (detectors,
    /// sampling requests, event encoding), in seconds.
    public var monitorThreadCPUSeconds: Double
    /// Latencies of the most recent successful main-thread samples (at most 4096), in
    /// nanoseconds, oldest first.
    public var recentSampleLatenciesNanoseconds: [UInt64]
}
