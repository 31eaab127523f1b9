import Foundation

/// How the process came to show its first frame.
public enum LaunchKind: String, Codable, Sendable, CaseIterable {
    /// A new process, nothing cached.
    case cold
    /// A new process with the app's pages still in the OS cache.
    case warm
    /// An existing process brought back to the foreground.
    case resume
    /// A process the OS started ahead of time (Apple's `ActivePrewarm`); excluded from cold
    /// launch statistics.
    case prewarmed
}

/// Payload of a `launch` event: the phases from process start to a usable first screen.
public struct LaunchPayload: Codable, Sendable, Hashable {
    /// Launch classification.
    public var kind: LaunchKind
    /// When the kernel created the process (wall clock).
    public var processStart: Date
    /// Process start to `main` (or SDK start when `main` is not observable), in ms.
    public var preMainMs: Double?
    /// `main` to the end of `didFinishLaunching`, in ms.
    public var mainToDidFinishMs: Double?
    /// Process start to the first rendered frame (time to initial display), in ms.
    public var ttidMs: Double?
    /// Process start to the app's "fully drawn" report (time to full display), in ms.
    public var ttfdMs: Double?
    /// Page faults (minor + major) from process start to the first frame.
    public var pageFaults: Int?
    /// Of ``pageFaults``, those that needed I/O.
    public var majorPageFaults: Int?
    /// Trace id shared by the launch's task spans.
    public var traceId: String?
    /// Launch tasks run by the orchestrator, one span each.
    public var tasks: [SpanPayload]?

    public init(kind: LaunchKind, processStart: Date, preMainMs: Double? = nil, mainToDidFinishMs: Double? = nil,
                ttidMs: Double? = nil, ttfdMs: Double? = nil, pageFaults: Int? = nil, majorPageFaults: Int? = nil,
                traceId: String? = nil, tasks: [SpanPayload]? = nil) {
        self.kind = kind
        self.processStart = processStart
        self.preMainMs = preMainMs
        self.mainToDidFinishMs = mainToDidFinishMs
        self.ttidMs = ttidMs
        self.ttfdMs = ttfdMs
        self.pageFaults = pageFaults
        self.majorPageFaults = majorPageFaults
        self.traceId = traceId
        self.tasks = tasks
    }
}
