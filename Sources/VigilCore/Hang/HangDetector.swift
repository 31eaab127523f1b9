import Foundation

/// Detects main-thread hangs from run-loop activities, watchdog ticks and stack samples: a pure
/// state machine with no threads, no I/O and no clock reads of its own except wall-clock
/// stamping through the injected ``VigilClock``.
///
/// **Inputs** (each with the monotonic instant it happened at):
/// - ``runLoopActivity(_:at:)`` from a run-loop observer on the main thread;
/// - ``watchdogTick(scheduled:actual:)`` from the watchdog thread, which sleeps until the
///   returned ``HangTickResult/nextTick`` and samples the main thread when told to;
/// - ``recordSample(_:at:)`` / ``recordSampleFailure(at:)`` with the sampler's result;
/// - ``frameRendered(at:frameDurationMs:)`` when frame timing exists (display link);
/// - ``appStateChanged(_:at:)``, ``pause(at:)``/``resume(at:)``, and threshold changes.
///
/// **Rules** (see `docs/detectors.md`): a turn is busy from Entry, BeforeTimers, BeforeSources
/// or AfterWaiting until BeforeWaiting or Exit (Matrix). A hang begins when a watchdog tick
/// finds a busy turn older than the threshold (default 2 s, at least 100 ms) and ends with the
/// turn; one that lasts past the fatal threshold (8 s) is `fatal`. From the sampling start
/// (default threshold/4) the detector asks for a sample every 50 ms; samples live in a bounded
/// ring that thins itself when full. A hang is reported once, when it ends, unless the
/// ``AnnealingFilter`` (same hot stack, no recovery) or the ``DailyReportCap`` (per top frame)
/// suppress it, or frame timing shows the main thread stayed responsive. Nothing is measured
/// while the app is in the background or suspended, while paused, or across a suspension of
/// the process (a watchdog tick much later than scheduled).
///
/// **Bad input** (out of order, duplicated, absurd) is skipped and counted in ``counters``;
/// nothing traps.
///
/// Value type, not thread-safe: the runtime owns one instance behind its lock or queue. Costs:
/// O(1) per activity, tick and frame; O(frames) per sample; aggregation at hang end and marker
/// refresh is O(samples × depth) with samples ≤ the ring capacity.
public struct HangDetector: Sendable {
    /// The configuration in force (clamped into range).
    public private(set) var configuration: HangConfiguration
    /// What was seen, skipped and suppressed.
    public private(set) var counters = HangDetectorCounters()
    /// The threshold in force, in milliseconds (the configured one, or the lowered one, or one
    /// set with ``setThreshold(_:at:)``).
    public private(set) var currentThresholdMs: Double
    /// The app state last fed in.
    public private(set) var appState: AppState
    /// Nesting depth of ``pause(at:)`` calls not yet resumed.
    public private(set) var pauseDepth = 0

    private let clock: any VigilClock
    private var baseThresholdMs: Double
    private var loweredUntil: MonotonicInstant?
    private var isLowered = false
    private var annealing: AnnealingFilter<[Address]>
    private var dailyCap: DailyReportCap<Address?>
    private let aggregator: StackAggregator
    private var ring: StackSampleRing

    private var activityOrder = InputOrderGuard()
    private var tickOrder = InputOrderGuard()
    private var sampleOrder = InputOrderGuard()
    private var frameOrder = InputOrderGuard()
    private var controlOrder = InputOrderGuard()
    private var lastActivity: RunLoopActivity?
    private var activitiesWereLost = false
    private var lastTick: (actual: MonotonicInstant, spacingMs: Double)?
    private var turn: Turn?

    /// A busy run-loop turn, as far as it has been measured.
    private struct Turn: Sendable {
        /// Start of the trusted measurement: the opening activity, or the moment monitoring
        /// (re)started or a suspension ended during the turn.
        var start: MonotonicInstant
        var openingActivity: RunLoopActivity
        /// Whether the turn is being measured (monitoring was on at `start`).
        var monitored: Bool
        var hang: Hang?
        var nextSampleDue: MonotonicInstant?
        var sampleIntervalMs: Double
        var framesRendered = 0
        var lastFrame: MonotonicInstant?
        var lastFrameDurationMs: Double = 0
        var delayedMs: Double = 0
    }

    /// A hang in progress.
    private struct Hang: Sendable {
        var thresholdMs: Double
        var lastMarkerAt: MonotonicInstant
        var pastFatal: Bool
    }

    /// Longest interval between samples that ring thinning doubles the cadence up to: an hour
    /// between samples is already no sampling, and the doubling must stay within what instants
    /// can express.
    private static let maximumSampleIntervalMs = 3_600_000.0

    /// A detector in the idle state.
    /// - Parameters:
    ///   - configuration: settings; clamped into range.
    ///   - clock: stamps wall times on markers and payloads and dates the daily cap.
    ///   - appState: the app's state at creation (foreground on Linux).
    public init(configuration: HangConfiguration = HangConfiguration(), clock: any VigilClock,
                appState: AppState = .foreground) {
        let config = configuration.clamped()
        self.configuration = config
        self.clock = clock
        self.appState = appState
        self.baseThresholdMs = config.thresholdMs
        self.currentThresholdMs = config.thresholdMs
        self.annealing = AnnealingFilter(periodMs: config.annealingPeriodMs)
        self.dailyCap = DailyReportCap(limit: config.dailyCapPerTopFrame, timeZone: config.dailyCapTimeZone)
        self.aggregator = StackAggregator(hotStackShare: config.hotStackShare)
        self.ring = StackSampleRing(capacity: config.sampleRingCapacity)
    }

    // MARK: - State

    /// Whether hangs are being looked for: foreground or inactive, and not paused.
    public var isMonitoring: Bool {
        pauseDepth == 0 && (appState == .foreground || appState == .inactive)
    }

    /// Whether a run-loop turn is busy.
    public var isTurnBusy: Bool { turn != nil }

    /// Whether a hang has begun and not yet ended.
    public var isHangInProgress: Bool { turn?.hang != nil }

    /// Samples held for the current turn.
    public var heldSampleCount: Int { ring.count }

    /// Sampling start in force, in milliseconds.
    public var samplingStartMs: Double { configuration.samplingStart(forThresholdMs: currentThresholdMs) }

    /// Tick spacing while no turn needs watching, in milliseconds: the sampling start (at least
    /// 10 ms), so that the first tick of any turn lands no later than its sampling start.
    public var idleTickIntervalMs: Double { max(samplingStartMs, 10) }

    /// The annealing filter's state, for diagnostics.
    public var annealingState: AnnealingFilter<[Address]> { annealing }

    /// The marker of the hang in progress as of `now`, nil when none is.
    public func marker(at now: MonotonicInstant) -> HangMarker? {
        guard let turn, let hang = turn.hang else { return nil }
        return makeMarker(turn: turn, hang: hang, now: now)
    }

    // MARK: - Run-loop activities

    /// Feeds one run-loop activity observed at `instant` on the main thread.
    public mutating func runLoopActivity(_ activity: RunLoopActivity, at instant: MonotonicInstant) -> [HangDetectorOutput] {
        var outputs: [HangDetectorOutput] = []
        switch activityOrder.admit(instant) {
        case .accepted:
            break
        case .duplicate:
            if activity == lastActivity {
                counters.duplicateInputs += 1
                return []
            }
        case .rejected:
            counters.outOfOrderInputs += 1
            return []
        case .resynchronized:
            counters.resynchronizations += 1
            abandonTurn(at: instant, outputs: &outputs)
        }
        lastActivity = activity
        // Right after a loss the sequence cannot be judged: the first activity only sets the state.
        let judgeSequence = !activitiesWereLost
        activitiesWereLost = false

        if activity.startsOrContinuesBusyTurn {
            if turn == nil {
                startTurn(at: instant, activity: activity)
            } else if activity == .afterWaiting {
                // AfterWaiting only follows a wait, and BeforeWaiting ended the turn: one was lost.
                counters.sequenceViolations += 1
            }
        } else if turn != nil {
            endTurn(at: instant, outputs: &outputs)
        } else if activity == .beforeWaiting && judgeSequence {
            counters.sequenceViolations += 1
        }
        return outputs
    }

    /// Tells the detector that run-loop activities were lost before `instant` (e.g. the buffer
    /// the main thread writes them into overflowed before the watchdog drained it). The busy
    /// turn, whose end may be among the lost activities, is abandoned unmeasured, and the next
    /// activity starts afresh.
    public mutating func runLoopActivitiesLost(at instant: MonotonicInstant) -> [HangDetectorOutput] {
        var outputs: [HangDetectorOutput] = []
        counters.lostActivityGaps += 1
        abandonTurn(at: instant, outputs: &outputs)
        lastActivity = nil
        activitiesWereLost = true
        return outputs
    }

    // MARK: - Watchdog

    /// Feeds a watchdog tick that was due at `scheduled` and ran at `actual`; returns what to do
    /// and when to tick next.
    ///
    /// A tick more than the suspension tolerance late means the whole process (watchdog
    /// included) was stopped: a hang in progress ends unreported (`suspended`) and the busy
    /// turn's measurement restarts at `actual`.
    public mutating func watchdogTick(scheduled: MonotonicInstant, actual: MonotonicInstant) -> HangTickResult {
        var outputs: [HangDetectorOutput] = []
        switch tickOrder.admit(actual, counting: &counters) {
        case .accepted:
            break
        case .duplicate, .rejected:
            return HangTickResult(outputs: [], takeSample: false, nextTick: nextTick(after: actual))
        case .resynchronized:
            abandonTurn(at: actual, outputs: &outputs)
        }

        let lateness = actual.milliseconds(since: scheduled)
        if lateness > configuration.suspensionToleranceMs {
            counters.suspensions += 1
            restartMeasurement(at: actual, outcome: .suspended, outputs: &outputs)
        }
        if let loweredUntil, actual >= loweredUntil {
            restoreThreshold(at: actual)
        }

        var takeSample = false
        if isMonitoring, var current = turn, current.monitored {
            let elapsed = actual.milliseconds(since: current.start)
            if current.hang == nil, elapsed >= currentThresholdMs {
                let hang = Hang(thresholdMs: currentThresholdMs, lastMarkerAt: actual,
                                pastFatal: elapsed >= configuration.fatalThresholdMs)
                current.hang = hang
                counters.hangsBegan += 1
                outputs.append(.hangBegan(makeMarker(turn: current, hang: hang, now: actual)))
            } else if var hang = current.hang {
                let crossedFatal = !hang.pastFatal && elapsed >= configuration.fatalThresholdMs
                if crossedFatal || actual.milliseconds(since: hang.lastMarkerAt) >= configuration.markerRefreshIntervalMs {
                    hang.pastFatal = hang.pastFatal || crossedFatal
                    hang.lastMarkerAt = actual
                    current.hang = hang
                    outputs.append(.hangUpdated(makeMarker(turn: current, hang: hang, now: actual)))
                }
            }
            if elapsed >= samplingStartMs {
                let slack = current.sampleIntervalMs / 10
                if current.nextSampleDue.map({ actual.advanced(byMilliseconds: slack) >= $0 }) ?? true {
                    takeSample = true
                    current.nextSampleDue = actual.advanced(byMilliseconds: current.sampleIntervalMs)
                }
            }
            turn = current
        }
        let next = nextTick(after: actual)
        lastTick = (actual, next.milliseconds(since: actual))
        return HangTickResult(outputs: outputs, takeSample: takeSample, nextTick: next)
    }

    /// When the watchdog should tick after one at `now`.
    private func nextTick(after now: MonotonicInstant) -> MonotonicInstant {
        let minimumStep = 1.0
        guard isMonitoring, let turn, turn.monitored else {
            return now.advanced(byMilliseconds: idleTickIntervalMs)
        }
        var due = turn.start.advanced(byMilliseconds: samplingStartMs)
        if let sampleDue = turn.nextSampleDue { due = sampleDue }
        if turn.hang == nil {
            due = min(due, turn.start.advanced(byMilliseconds: currentThresholdMs))
        } else if let hang = turn.hang, !hang.pastFatal {
            due = min(due, turn.start.advanced(byMilliseconds: configuration.fatalThresholdMs))
        }
        return max(due, now.advanced(byMilliseconds: minimumStep))
    }

    // MARK: - Samples

    /// Feeds a main-thread stack (innermost first) sampled at `instant`.
    public mutating func recordSample(_ frames: [Address], at instant: MonotonicInstant) {
        // A resynchronised sample stream needs no reset: each sample is judged against the turn.
        guard sampleOrder.admit(instant, counting: &counters).isUsable else { return }
        guard !frames.isEmpty else {
            counters.absurdInputs += 1
            return
        }
        guard isMonitoring, var current = turn, current.monitored, instant >= current.start else {
            counters.samplesOutsideTurn += 1
            return
        }
        var kept = frames
        if kept.count > configuration.maxFramesPerSample {
            kept = Array(kept.prefix(configuration.maxFramesPerSample))
            counters.truncatedSamples += 1
        }
        if ring.isFull {
            // Keep every other sample and halve the cadence from this sample on, so the kept
            // samples stay evenly spaced across the whole turn.
            ring.thin()
            current.sampleIntervalMs = min(current.sampleIntervalMs * 2, Self.maximumSampleIntervalMs)
            current.nextSampleDue = instant.advanced(byMilliseconds: current.sampleIntervalMs)
            counters.ringThinnings += 1
            turn = current
        }
        ring.append(StackSample(instant: instant, frames: kept))
    }

    /// Records that the sampler asked for a sample at `instant` and the main thread did not
    /// answer in time.
    public mutating func recordSampleFailure(at instant: MonotonicInstant) {
        counters.sampleFailures += 1
    }

    // MARK: - Frames

    /// Feeds one rendered frame: displayed at `instant`, at a refresh interval of
    /// `frameDurationMs` (e.g. 16.67 at 60 Hz). Used only to tell `fullyBlocking` from
    /// `nonFullyBlocking` hangs.
    public mutating func frameRendered(at instant: MonotonicInstant, frameDurationMs: Double) {
        guard frameDurationMs.isFinite, frameDurationMs > 0, frameDurationMs <= 1000 else {
            counters.absurdInputs += 1
            return
        }
        guard frameOrder.admit(instant, counting: &counters).isUsable else { return }
        guard var current = turn, current.monitored, instant >= current.start else { return }
        let gapStart = max(current.lastFrame ?? current.start, current.start)
        current.delayedMs += max(0, instant.milliseconds(since: gapStart) - frameDurationMs)
        current.framesRendered += 1
        current.lastFrame = instant
        current.lastFrameDurationMs = frameDurationMs
        turn = current
    }

    // MARK: - Guards

    /// Feeds an app state change. Background and suspended stop monitoring; foreground and
    /// inactive start it (a busy turn is then measured from `instant`).
    public mutating func appStateChanged(_ state: AppState, at instant: MonotonicInstant) -> [HangDetectorOutput] {
        guard admitControl(instant) else { return [] }
        let wasMonitoring = isMonitoring
        appState = state
        return monitoringChanged(from: wasMonitoring, at: instant)
    }

    /// Stops hang detection until the matching ``resume(at:)`` (calls nest), e.g. around a modal
    /// dialog or a system prompt that legitimately keeps the outer run-loop turn busy.
    public mutating func pause(at instant: MonotonicInstant) -> [HangDetectorOutput] {
        guard admitControl(instant) else { return [] }
        let wasMonitoring = isMonitoring
        pauseDepth += 1
        return monitoringChanged(from: wasMonitoring, at: instant)
    }

    /// Ends one ``pause(at:)``; detection restarts when the outermost pause ends, measuring a
    /// busy turn from `instant`. An unmatched resume is counted and ignored.
    public mutating func resume(at instant: MonotonicInstant) -> [HangDetectorOutput] {
        guard admitControl(instant) else { return [] }
        guard pauseDepth > 0 else {
            counters.unbalancedResumes += 1
            return []
        }
        let wasMonitoring = isMonitoring
        pauseDepth -= 1
        return monitoringChanged(from: wasMonitoring, at: instant)
    }

    // MARK: - Dynamic threshold

    /// Lowers the threshold to the configured lowered value (Matrix's `lowerRunloopThreshold`),
    /// e.g. during launch or a critical flow; it comes back with ``restoreThreshold(at:)`` or,
    /// when `deadline` is given, at the first tick at or after it. A hang already in progress
    /// keeps the threshold it began with.
    public mutating func lowerThreshold(until deadline: MonotonicInstant? = nil, at instant: MonotonicInstant) {
        guard admitControl(instant) else { return }
        isLowered = true
        loweredUntil = deadline
        currentThresholdMs = min(loweredThreshold, baseThresholdMs)
    }

    /// Brings the threshold back to its base value after ``lowerThreshold(until:at:)``.
    public mutating func restoreThreshold(at instant: MonotonicInstant) {
        isLowered = false
        loweredUntil = nil
        currentThresholdMs = baseThresholdMs
    }

    /// Sets the base threshold (Matrix's `setRunloopThreshold`), clamped to at least 100 ms and
    /// below the fatal threshold; returns the value now in force.
    @discardableResult
    public mutating func setThreshold(_ milliseconds: Double, at instant: MonotonicInstant) -> Double {
        guard milliseconds.isFinite else {
            counters.absurdInputs += 1
            return currentThresholdMs
        }
        baseThresholdMs = min(max(milliseconds, HangConfiguration.minimumThresholdMs),
                              configuration.fatalThresholdMs - 1)
        currentThresholdMs = isLowered ? min(loweredThreshold, baseThresholdMs) : baseThresholdMs
        return currentThresholdMs
    }

    private var loweredThreshold: Double {
        let lowered = configuration.loweredThresholdMs ?? baseThresholdMs / 2
        return max(lowered, HangConfiguration.minimumThresholdMs)
    }

    // MARK: - Turn bookkeeping

    private mutating func startTurn(at instant: MonotonicInstant, activity: RunLoopActivity) {
        ring.removeAll()
        turn = Turn(start: instant, openingActivity: activity, monitored: isMonitoring,
                    sampleIntervalMs: configuration.sampleIntervalMs)
    }

    private mutating func endTurn(at end: MonotonicInstant, outputs: inout [HangDetectorOutput]) {
        guard let current = turn else { return }
        defer {
            turn = nil
            ring.removeAll()
        }
        guard current.monitored, isMonitoring else { return }
        let duration = end.milliseconds(since: current.start)
        if duration >= configuration.slowTurnMs { counters.slowTurns += 1 }
        if let hang = current.hang {
            finishHang(turn: current, hang: hang, end: end, outputs: &outputs)
        } else if duration >= currentThresholdMs {
            guard watchdogIsLive(at: end) else {
                counters.unobservedLongTurns += 1
                return
            }
            // The watchdog was alive and on time but the turn ended between two ticks, just past
            // the threshold: the hang is real, begin and end it now.
            let hang = Hang(thresholdMs: currentThresholdMs, lastMarkerAt: end,
                            pastFatal: duration >= configuration.fatalThresholdMs)
            counters.hangsBegan += 1
            outputs.append(.hangBegan(makeMarker(turn: current, hang: hang, now: end)))
            finishHang(turn: current, hang: hang, end: end, outputs: &outputs)
        }
    }

    /// Whether ticks were arriving on schedule up to `instant`: the last one is no further back
    /// than its own planned spacing plus the suspension tolerance.
    private func watchdogIsLive(at instant: MonotonicInstant) -> Bool {
        guard let lastTick else { return false }
        let since = instant.milliseconds(since: lastTick.actual)
        return since <= lastTick.spacingMs + configuration.suspensionToleranceMs
    }

    private mutating func finishHang(turn current: Turn, hang: Hang, end: MonotonicInstant,
                                     outputs: inout [HangDetectorOutput]) {
        let duration = end.milliseconds(since: current.start)
        let samples = ring.samples.filter { $0.instant >= current.start && $0.instant <= end }
        let aggregate = aggregator.aggregate(samples)
        let marker = HangMarker(
            start: clock.wallTime(of: current.start), lastSeen: clock.wallTime(of: end), durationMs: duration,
            thresholdMs: hang.thresholdMs, runLoopActivity: current.openingActivity.rawValue,
            pastFatalThreshold: duration >= configuration.fatalThresholdMs, stacks: aggregate.stacks,
            hotStack: aggregate.hotStack, sampleCount: aggregate.sampleCount)

        let outcome: HangOutcome
        var kind: HangKind = .fullyBlocking
        if duration < hang.thresholdMs {
            outcome = .belowThreshold
        } else {
            if duration >= configuration.fatalThresholdMs {
                kind = .fatal
            } else if current.framesRendered > 0, let lastFrame = current.lastFrame {
                let tail = max(0, end.milliseconds(since: lastFrame) - current.lastFrameDurationMs)
                let delayedShare = (current.delayedMs + tail) / max(duration, 1e-9)
                kind = delayedShare >= configuration.nonFullyBlockingDelayedShare ? .nonFullyBlocking : .fullyBlocking
                if delayedShare < configuration.nonFullyBlockingDelayedShare {
                    finish(marker: marker, outcome: .responsive, outputs: &outputs)
                    return
                }
            }
            if annealing.consider(aggregate.hotStack, start: current.start, end: end) == .annealed {
                outcome = .annealed
            } else if !dailyCap.admit(aggregate.hotStack?.first, at: clock.wallNow()) {
                outcome = .capped
            } else {
                outcome = .reported
            }
        }
        finish(marker: marker, outcome: outcome, outputs: &outputs)
        if outcome == .reported {
            outputs.append(.report(HangPayload(
                start: marker.start, end: marker.lastSeen, durationMs: duration, kind: kind,
                thresholdMs: hang.thresholdMs, runLoopActivity: current.openingActivity.rawValue,
                stacks: aggregate.stacks, hotStack: aggregate.hotStack, sampleCount: aggregate.sampleCount)))
        }
    }

    private mutating func finish(marker: HangMarker, outcome: HangOutcome, outputs: inout [HangDetectorOutput]) {
        outputs.append(.hangEnded(marker, outcome))
        if outcome == .reported {
            counters.hangsReported += 1
        } else {
            counters.hangsNotReported[outcome, default: 0] += 1
        }
    }

    /// Ends a hang in progress unreported with `outcome` and restarts the busy turn's
    /// measurement at `instant` (after a suspension).
    private mutating func restartMeasurement(at instant: MonotonicInstant, outcome: HangOutcome,
                                             outputs: inout [HangDetectorOutput]) {
        guard var current = turn else { return }
        if let hang = current.hang {
            finish(marker: makeMarker(turn: current, hang: hang, now: instant), outcome: outcome, outputs: &outputs)
        }
        current.start = instant
        current.hang = nil
        current.nextSampleDue = nil
        current.sampleIntervalMs = configuration.sampleIntervalMs
        current.framesRendered = 0
        current.lastFrame = nil
        current.delayedMs = 0
        current.monitored = isMonitoring
        turn = current
        ring.removeAll()
    }

    /// Drops the busy turn after an input stream was resynchronised: whatever was measured
    /// against the old reference cannot be trusted.
    private mutating func abandonTurn(at instant: MonotonicInstant, outputs: inout [HangDetectorOutput]) {
        guard let current = turn else { return }
        if let hang = current.hang {
            finish(marker: makeMarker(turn: current, hang: hang, now: max(instant, current.start)),
                   outcome: .abandoned, outputs: &outputs)
        }
        turn = nil
        ring.removeAll()
    }

    private mutating func monitoringChanged(from wasMonitoring: Bool, at instant: MonotonicInstant) -> [HangDetectorOutput] {
        var outputs: [HangDetectorOutput] = []
        let nowMonitoring = isMonitoring
        guard wasMonitoring != nowMonitoring, var current = turn else { return outputs }
        if !nowMonitoring {
            // The hang was real up to now: report it, cut at the moment monitoring stopped.
            if let hang = current.hang, current.monitored {
                counters.hangsCutByMonitoringStop += 1
                finishHang(turn: current, hang: hang, end: max(instant, current.start), outputs: &outputs)
            }
            current.monitored = false
            current.hang = nil
            turn = current
            ring.removeAll()
        } else {
            restartMeasurement(at: instant, outcome: .abandoned, outputs: &outputs)
        }
        return outputs
    }

    private mutating func admitControl(_ instant: MonotonicInstant) -> Bool {
        switch controlOrder.admit(instant) {
        case .accepted, .duplicate, .resynchronized:
            // Control calls at the same instant are distinct calls, not duplicates.
            return true
        case .rejected:
            counters.outOfOrderInputs += 1
            return false
        }
    }

    private func makeMarker(turn: Turn, hang: Hang, now: MonotonicInstant) -> HangMarker {
        let samples = ring.samples.filter { $0.instant >= turn.start }
        let aggregate = aggregator.aggregate(samples)
        let duration = max(0, now.milliseconds(since: turn.start))
        return HangMarker(
            start: clock.wallTime(of: turn.start), lastSeen: clock.wallTime(of: now), durationMs: duration,
            thresholdMs: hang.thresholdMs, runLoopActivity: turn.openingActivity.rawValue,
            pastFatalThreshold: hang.pastFatal || duration >= configuration.fatalThresholdMs,
            stacks: aggregate.stacks, hotStack: aggregate.hotStack, sampleCount: aggregate.sampleCount)
    }
}
