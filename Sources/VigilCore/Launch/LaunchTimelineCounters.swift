/// Inputs the ``LaunchTimeline`` skipped. Every field only grows.
public struct LaunchTimelineCounters: Sendable, Hashable {
    /// Marks reported a second time; the first one wins.
    public var duplicateMarks = 0
    /// Marks earlier than a mark that must precede them (e.g. a first frame before `main`).
    public var outOfOrderMarks = 0
    /// Marks before the process started, and page-fault counts that went down.
    public var absurdInputs = 0
    /// Task spans attached after the launch had been reported, and so dropped (one per span).
    public var droppedTaskSpans = 0

    /// All zero.
    public init() {}
}
