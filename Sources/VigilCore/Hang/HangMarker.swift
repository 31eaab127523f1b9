import Foundation

/// The persisted "hang in progress" record: written when a hang begins, refreshed while it
/// lasts, deleted when it ends. A marker still present at the next start means the process
/// died inside the hang, and ``fatalPayload()`` turns it into the `fatal` hang to report.
///
/// Codable so the runtime can store it as a small JSON file.
public struct HangMarker: Codable, Sendable, Hashable {
    /// When the busy turn began (wall clock).
    public var start: Date
    /// The last moment the hang was observed (wall clock).
    public var lastSeen: Date
    /// `lastSeen - start`, in milliseconds (monotonic).
    public var durationMs: Double
    /// Threshold in force when the hang began, in milliseconds.
    public var thresholdMs: Double
    /// The activity that opened the busy turn.
    public var runLoopActivity: String
    /// Whether the hang has passed the fatal threshold.
    public var pastFatalThreshold: Bool
    /// Samples so far, aggregated, most frequent first.
    public var stacks: [StackCount]
    /// The hot stack so far, innermost first.
    public var hotStack: [Address]?
    /// Samples taken so far.
    public var sampleCount: Int

    /// A marker with the given fields.
    public init(start: Date, lastSeen: Date, durationMs: Double, thresholdMs: Double, runLoopActivity: String,
                pastFatalThreshold: Bool, stacks: [StackCount], hotStack: [Address]?, sampleCount: Int) {
        self.start = start
        self.lastSeen = lastSeen
        self.durationMs = durationMs
        self.thresholdMs = thresholdMs
        self.runLoopActivity = runLoopActivity
        self.pastFatalThreshold = pastFatalThreshold
        self.stacks = stacks
        self.hotStack = hotStack
        self.sampleCount = sampleCount
    }

    /// The `fatal` hang to report for a process that died while this marker was current:
    /// it ends at ``lastSeen``, the last moment anyone saw it.
    public func fatalPayload() -> HangPayload {
        HangPayload(start: start, end: lastSeen, durationMs: durationMs, kind: .fatal, thresholdMs: thresholdMs,
                    runLoopActivity: runLoopActivity, stacks: stacks, hotStack: hotStack,
                    sampleCount: sampleCount)
    }
}
