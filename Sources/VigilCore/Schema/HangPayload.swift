import Foundation

/// How bad a hang was.
public enum HangKind: String, Codable, Sendable, CaseIterable {
    /// No frame was rendered and no run-loop turn completed during the hang.
    case fullyBlocking
    /// The main thread made some progress but was late for at least 95% of the window.
    case nonFullyBlocking
    /// The hang lasted past the fatal threshold (8 s by default) or the process died in it.
    case fatal
}

/// Payload of a `hang` event: a main-thread run-loop turn that stayed busy past the threshold.
public struct HangPayload: Codable, Sendable, Hashable {
    /// When the busy turn began (wall clock).
    public var start: Date
    /// When the turn ended, or the last moment the hang was observed for a fatal hang.
    public var end: Date
    /// `end - start` in milliseconds.
    public var durationMs: Double
    /// Severity class of the hang.
    public var kind: HangKind
    /// The threshold in force when the hang was detected, in milliseconds.
    public var thresholdMs: Double
    /// The run-loop activity that opened the busy turn, e.g. `beforeSources`, `afterWaiting`.
    public var runLoopActivity: String
    /// Aggregated main-thread samples: each distinct stack with its sample count, most
    /// frequent first.
    public var stacks: [StackCount]
    /// The hot stack: the most frequent common prefix of the samples (outermost frames shared
    /// by most samples), innermost first. Absent when no sample was taken.
    public var hotStack: [Address]?
    /// Number of samples taken during the hang.
    public var sampleCount: Int?
    /// Process CPU usage over the hang, in percent of one core.
    public var cpuPercent: Double?
    /// Process memory (footprint on Apple, RSS on Linux) at the end of the hang, in bytes.
    public var memoryBytes: UInt64?

    public init(start: Date, end: Date, durationMs: Double, kind: HangKind, thresholdMs: Double,
                runLoopActivity: String, stacks: [StackCount], hotStack: [Address]? = nil,
                sampleCount: Int? = nil, cpuPercent: Double? = nil, memoryBytes: UInt64? = nil) {
        self.start = start
        self.end = end
        self.durationMs = durationMs
        self.kind = kind
        self.thresholdMs = thresholdMs
        self.runLoopActivity = runLoopActivity
        self.stacks = stacks
        self.hotStack = hotStack
        self.sampleCount = sampleCount
        self.cpuPercent = cpuPercent
        self.memoryBytes = memoryBytes
    }
}
