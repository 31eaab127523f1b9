import Foundation

/// Measures one launch from the process's start to its first frame and its fully drawn screen,
/// classifies it (cold, warm, resume, prewarmed), and produces the `launch` payload.
///
/// **Inputs**: the process start time (a fact the runtime reads: `/proc/self/stat` + `/proc/stat`
/// on Linux, see ``ProcStat`` and ``ProcSystemStat``; `sysctl` on Darwin), the ``LaunchFacts``,
/// ``mark(_:at:)`` for each ``LaunchMark``, and ``recordPageFaults(_:at:)`` at the origin and at the
/// first frame.
///
/// **Rules**: a new process is measured from its start; a `resume` from its foreground entry; a
/// `prewarmed` one from `main` (falling back to SDK start), because the OS ran the part before
/// `main` ahead of time, and it is flagged out of cold-start statistics. A launch whose time to
/// initial display exceeds 180 s is dropped. Marks must respect their order (main ≤
/// didFinishLaunching ≤ first frame ≤ fully drawn); a mark out of order or repeated is skipped
/// and counted.
///
/// Monotonic marks are turned into wall time through an anchor (monotonic and wall readings)
/// taken once at creation, so later wall-clock jumps do not distort the phases. Value type;
/// O(1) per call.
public struct LaunchTimeline: Sendable {
    /// When the process started (wall clock).
    public let processStart: Date
    /// How the launch came about.
    public let facts: LaunchFacts
    /// The launch's classification.
    public let kind: LaunchKind
    /// The configuration in force (clamped).
    public let configuration: LaunchConfiguration
    /// Inputs that were skipped.
    public private(set) var counters = LaunchTimelineCounters()

    private let anchorMonotonic: MonotonicInstant
    private let anchorWall: Date
    private var marks: [LaunchMark: MonotonicInstant] = [:]
    private var pageFaults: [LaunchMark: PageFaultCounts] = [:]
    private var taskTrace: (traceId: String, spans: [SpanPayload])?

    /// A timeline for the process that started at `processStart`.
    /// - Parameter clock: read once, to anchor monotonic marks to the wall clock.
    public init(processStart: Date, facts: LaunchFacts, configuration: LaunchConfiguration = LaunchConfiguration(),
                clock: any VigilClock) {
        self.processStart = processStart
        self.facts = facts
        self.configuration = configuration.clamped()
        self.kind = Self.classify(facts, configuration: self.configuration)
        self.anchorMonotonic = clock.monotonicNow()
        self.anchorWall = clock.wallNow()
    }

    /// The classification of a launch with `facts`: not a new process → `resume`; prewarmed →
    /// `prewarmed`; pages known to be cached, or the previous launch within the warm window
    /// with no reboot since → `warm`; anything else → `cold`.
    public static func classify(_ facts: LaunchFacts, configuration: LaunchConfiguration = LaunchConfiguration()) -> LaunchKind {
        if !facts.isNewProcess { return .resume }
        if facts.isPrewarmed { return .prewarmed }
        if let cached = facts.pagesCached { return cached ? .warm : .cold }
        if !facts.rebootedSinceLastLaunch, let since = facts.secondsSinceLastLaunch, since.isFinite, since >= 0,
           since <= configuration.warmLaunchWindowSeconds {
            return .warm
        }
        return .cold
    }

    /// The instant recorded for `mark`, if any.
    public func instant(of mark: LaunchMark) -> MonotonicInstant? { marks[mark] }

    /// Records `mark` at `instant`. The first report of a mark wins; a mark out of order with
    /// the marks already recorded, or before the process started, is skipped and counted.
    public mutating func mark(_ mark: LaunchMark, at instant: MonotonicInstant) {
        guard marks[mark] == nil else {
            counters.duplicateMarks += 1
            return
        }
        // Process start has 10 ms resolution on Linux (clock ticks): allow that much slack.
        if milliseconds(from: processStart, to: instant) < -50 {
            counters.absurdInputs += 1
            return
        }
        if let rank = mark.rank {
            for (other, otherInstant) in marks {
                guard let otherRank = other.rank else { continue }
                if (otherRank < rank && otherInstant > instant) || (otherRank > rank && otherInstant < instant) {
                    counters.outOfOrderMarks += 1
                    return
                }
            }
        }
        marks[mark] = instant
    }

    /// Records the process's cumulative page faults at `mark` (the origin and the first frame
    /// matter; a new process's origin is its start, where the count is zero).
    public mutating func recordPageFaults(_ counts: PageFaultCounts, at mark: LaunchMark) {
        guard pageFaults[mark] == nil else {
            counters.duplicateMarks += 1
            return
        }
        // Counts are cumulative: the first frame's cannot be below any earlier mark's.
        let inconsistent = pageFaults.contains { other, otherCounts in
            let (early, late) = other == .firstFrame ? (counts, otherCounts)
                : mark == .firstFrame ? (otherCounts, counts) : (otherCounts, otherCounts)
            return late.minor < early.minor || late.major < early.major
        }
        guard !inconsistent else {
            counters.absurdInputs += 1
            return
        }
        pageFaults[mark] = counts
    }

    /// Attaches the launch orchestrator's task spans (those named `launch.task.…`; others are
    /// left out) and their trace id, so that the payload carries them (`traceId`, `tasks`): the
    /// task waterfall and critical path of this launch. A later attachment replaces an earlier
    /// one (a later snapshot of the runner holds every span the earlier one did, and the tasks
    /// of later phases); one after the launch was reported (`launchReported`) is dropped and its
    /// spans counted in ``LaunchTimelineCounters/droppedTaskSpans``. O(spans).
    public mutating func attachTasks(traceId: String, spans: [SpanPayload], launchReported: Bool = false) {
        let tasks = spans.filter { $0.name.hasPrefix("launch.task.") }
        guard !launchReported else {
            counters.droppedTaskSpans += tasks.count
            return
        }
        taskTrace = (traceId, tasks)
    }

    /// The launch as measured so far.
    public func outcome() -> LaunchOutcome {
        guard let origin = originWall, let firstFrame = marks[.firstFrame] else { return .pending }
        let ttid = max(0, milliseconds(from: origin, to: firstFrame))
        guard ttid <= configuration.maximumLaunchMs else { return .dropped(.tooLong(ttidMs: ttid)) }
        let ttfd = marks[.fullyDrawn].map { max(0, milliseconds(from: origin, to: $0)) }

        var preMain: Double?
        if kind == .cold || kind == .warm, let firstObservable = marks[.main] ?? marks[.sdkStart] {
            preMain = max(0, milliseconds(from: processStart, to: firstObservable))
        }
        var mainToDidFinish: Double?
        if let main = marks[.main], let didFinish = marks[.didFinishLaunching] {
            mainToDidFinish = max(0, didFinish.milliseconds(since: main))
        }
        let faults = pageFaultDelta()
        let payload = LaunchPayload(kind: kind, processStart: processStart, preMainMs: preMain,
                                    mainToDidFinishMs: mainToDidFinish, ttidMs: ttid, ttfdMs: ttfd,
                                    pageFaults: faults.map { Int(clamping: $0.total) },
                                    majorPageFaults: faults.map { Int(clamping: $0.major) },
                                    traceId: taskTrace.flatMap { $0.spans.isEmpty ? nil : $0.traceId }, tasks: taskTrace.flatMap { $0.spans.isEmpty ? nil : $0.spans })
        return .completed(LaunchResult(payload: payload, countsTowardColdStatistics: kind == .cold))
    }

    /// Wall time the launch is measured from, nil while its mark is missing.
    private var originWall: Date? {
        switch kind {
        case .cold, .warm: return processStart
        case .resume: return marks[.foregroundEntry].map(wallTime)
        case .prewarmed: return (marks[.main] ?? marks[.sdkStart]).map(wallTime)
        }
    }

    private func pageFaultDelta() -> PageFaultCounts? {
        guard let end = pageFaults[.firstFrame] else { return nil }
        let start: PageFaultCounts
        switch kind {
        case .cold, .warm:
            start = PageFaultCounts(minor: 0, major: 0)
        case .resume:
            guard let atEntry = pageFaults[.foregroundEntry] else { return nil }
            start = atEntry
        case .prewarmed:
            guard let atOrigin = pageFaults[.main] ?? pageFaults[.sdkStart] else { return nil }
            start = atOrigin
        }
        guard end.minor >= start.minor, end.major >= start.major else { return nil }
        return PageFaultCounts(minor: end.minor - start.minor, major: end.major - start.major)
    }

    private func wallTime(_ instant: MonotonicInstant) -> Date {
        anchorWall.addingTimeInterval(instant.milliseconds(since: anchorMonotonic) / 1000)
    }

    private func milliseconds(from date: Date, to instant: MonotonicInstant) -> Double {
        wallTime(instant).timeIntervalSince(date) * 1000
    }
}
