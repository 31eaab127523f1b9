import Foundation

/// How `Vigil.start(_:)` sets up crash capture (``VigilSetup/crash``). The kill switch is the
/// `crash` module of ``VigilSetup/monitoring``; pending reports of earlier runs are recovered
/// even when it is off.
public struct CrashCaptureOptions: Sendable, Hashable {
    /// Frames kept for the crashed thread, and per other thread.
    public var maxFrames: Int = 512
    public var maxFramesOtherThreads: Int = 128
    /// Other threads captured at most.
    public var maxThreads: Int = 64
    /// Total time the handler waits for other threads to stop, in milliseconds. Threads that
    /// block the park signal (libdispatch's workers) are not waited for: their stacks come from
    /// /proc (docs/crash.md).
    public var threadTimeoutMs: Int = 20
    /// How often the image snapshot is checked against the loader's list, in milliseconds (one
    /// `dl_iterate_phdr` step when nothing changed). Libraries loaded in between are still
    /// named at crash time, without build ids.
    public var imageRefreshIntervalMs: Int = 1000
    /// The directory for raw reports; nil means `<dataDirectory>/crashes`.
    public var directory: URL?
    /// Tests only: write this run's report to this file instead of the crash directory (e.g.
    /// `/dev/full` to simulate a full disk).
    public var reportFileOverride: URL?
    /// Tests only: a deliberate fault, or a stall of `testStallMs`, inside the handler when it
    /// reaches this report section.
    public var testFaultSection: String?
    public var testStallSection: String?
    public var testStallMs: Int = 0

    public init() {}
}
