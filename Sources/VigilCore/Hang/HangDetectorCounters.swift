/// What the ``HangDetector`` saw, skipped and suppressed, for diagnostics and for the "nothing
/// is lost silently" rule. Every field only grows.
public struct HangDetectorCounters: Sendable, Hashable {
    /// Inputs older than the last accepted input of their stream, skipped.
    public var outOfOrderInputs = 0
    /// Inputs that repeated the previous one exactly (same kind, same instant), skipped.
    public var duplicateInputs = 0
    /// Inputs that contradict the run-loop sequence (AfterWaiting while busy, BeforeWaiting
    /// while idle); applied as far as they make sense.
    public var sequenceViolations = 0
    /// Streams resynchronised after repeated out-of-order input.
    public var resynchronizations = 0
    /// Times the runtime reported lost run-loop activities (``HangDetector/runLoopActivitiesLost(at:)``).
    public var lostActivityGaps = 0
    /// Inputs with impossible values (non-finite or non-positive durations, empty stacks…),
    /// skipped.
    public var absurdInputs = 0
    /// `resume` calls without a matching `pause`.
    public var unbalancedResumes = 0
    /// Samples that arrived while no monitored turn was busy, dropped.
    public var samplesOutsideTurn = 0
    /// Samples whose thread did not answer (reported through `recordSampleFailure`).
    public var sampleFailures = 0
    /// Samples cut to the frame limit.
    public var truncatedSamples = 0
    /// Times the sample ring was thinned to every other sample (the interval doubled).
    public var ringThinnings = 0
    /// Late watchdog ticks read as suspensions.
    public var suspensions = 0
    /// Turns that ran past the threshold without a live watchdog to observe them (no ticks,
    /// or ticks too far apart), not reported.
    public var unobservedLongTurns = 0
    /// Completed turns of at least `slowTurnMs` (the sensitive BeforeWaiting check), hangs
    /// included, while monitoring.
    public var slowTurns = 0
    /// Hangs that began (each also ends exactly once).
    public var hangsBegan = 0
    /// Hangs reported.
    public var hangsReported = 0
    /// Hangs not reported, by ``HangOutcome`` (everything except `reported`).
    public var hangsNotReported: [HangOutcome: Int] = [:]
    /// Hangs cut short because monitoring stopped (background, suspended or paused) while they
    /// lasted; they are still reported up to that moment.
    public var hangsCutByMonitoringStop = 0

    /// All zero.
    public init() {}

    /// Sum of the input problems (out of order, duplicate, sequence, absurd).
    public var badInputs: Int { outOfOrderInputs + duplicateInputs + sequenceViolations + absurdInputs }
}
