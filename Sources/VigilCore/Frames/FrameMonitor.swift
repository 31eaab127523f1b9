import Foundation

/// Measures rendering health from display-link callbacks: frames per second, dropped frames,
/// slow and severe gaps, and frozen frames with one main-thread stack each, aggregated per page
/// into `frames` payloads. A pure state machine; wall times come from the injected clock.
///
/// **Inputs**: ``frame(timestamp:targetTimestamp:)`` (or ``frame(timestamp:frameDurationMs:)``)
/// from every display-link callback; ``check(at:)`` from the watchdog (it is what notices a
/// freeze while no frames arrive); ``recordFreezeStack(_:at:)`` with the stack it asked for;
/// ``pageChanged(to:at:)``, ``appStateChanged(_:at:)``, ``pause(at:)``/``resume(at:)`` (the display
/// link stopped); ``flush(at:final:)``.
///
/// **Rules**: a gap between two frames drops `round((gap − frameDuration) / frameDuration)`
/// frames, where `frameDuration` is the refresh interval announced with the *earlier* frame, so
/// the math holds at 60 Hz, 120 Hz and across a refresh-rate change. A gap dropping at least 3
/// frames is slow, at least 7 severe (a severe gap is also slow), a gap of at least 700 ms is a
/// frozen frame (also slow and severe). FPS is measured only over spans of at least 1 s.
/// Statistics accumulate per page and are closed every report interval (60 s).
///
/// Value type, not thread-safe: the runtime serialises calls. O(1) per frame and check.
public struct FrameMonitor: Sendable {
    /// The configuration in force (clamped into range).
    public private(set) var configuration: FrameConfiguration
    /// What was seen and skipped.
    public private(set) var counters = FrameMonitorCounters()
    /// The page frames are attributed to.
    public private(set) var currentPage: String?
    /// The app state last fed in.
    public private(set) var appState: AppState
    /// Nesting depth of ``pause(at:)`` calls not yet resumed.
    public private(set) var pauseDepth = 0
    /// Frames per second over the most recent completed span of at least the minimum window
    /// (1 s); nil until one completed.
    public private(set) var currentFPS: Double?
    /// Refresh rate announced with the last frame, in Hz.
    public private(set) var refreshRate: Double?

    /// Name of the synthetic page that collects frames once ``FrameConfiguration/maxPagesPerReport``
    /// pages are tracked.
    public static let overflowPage = "(other pages)"

    private let clock: any VigilClock
    private var frameOrder = InputOrderGuard()
    private var checkOrder = InputOrderGuard()
    private var controlOrder = InputOrderGuard()
    private var lastFrame: (instant: MonotonicInstant, durationMs: Double)?
    private var freezeArmed = true
    private var captureRequested = false
    private var pendingStack: [Address]?
    private var fpsWindow: (start: MonotonicInstant, intervals: Int)?
    private var tallies: [PageFrameTally] = []
    private var reportWindowStart: MonotonicInstant?

    /// A monitor with no frames yet.
    public init(configuration: FrameConfiguration = FrameConfiguration(), clock: any VigilClock,
                page: String? = nil, appState: AppState = .foreground) {
        self.configuration = configuration.clamped()
        self.clock = clock
        self.currentPage = page
        self.appState = appState
    }

    /// Whether frames are being measured: foreground or inactive, and not paused.
    public var isMonitoring: Bool {
        pauseDepth == 0 && (appState == .foreground || appState == .inactive)
    }

    /// Whether a stack capture was requested for the current freeze and not yet fed.
    public var isAwaitingFreezeStack: Bool { captureRequested && pendingStack == nil }

    // MARK: - Frames

    /// Feeds one display-link callback: `timestamp` is when the last frame was displayed and
    /// `targetTimestamp` when the next one should be (CADisplayLink's two properties).
    public mutating func frame(timestamp: MonotonicInstant, targetTimestamp: MonotonicInstant) -> [FrameMonitorOutput] {
        frame(timestamp: timestamp, frameDurationMs: targetTimestamp.milliseconds(since: timestamp))
    }

    /// Feeds one display-link callback: a frame displayed at `timestamp` with a refresh interval
    /// of `frameDurationMs` (16.67 at 60 Hz, 8.33 at 120 Hz).
    public mutating func frame(timestamp: MonotonicInstant, frameDurationMs: Double) -> [FrameMonitorOutput] {
        guard frameDurationMs.isFinite, frameDurationMs > 0, frameDurationMs <= 1000 else {
            counters.absurdInputs += 1
            return []
        }
        switch frameOrder.admit(timestamp, counting: &counters) {
        case .accepted:
            break
        case .duplicate, .rejected:
            return []
        case .resynchronized:
            restartSequence()
        }
        guard isMonitoring else { return [] }
        counters.frames += 1
        refreshRate = 1000 / frameDurationMs
        // A tally opened mid-sequence starts where the gap it accounts for starts.
        let index = tallyIndex(for: currentPage, at: lastFrame?.instant ?? timestamp)
        tallies[index].frames += 1
        tallies[index].lastFrame = timestamp
        tallies[index].refreshRate = (1000 / frameDurationMs * 10).rounded() / 10

        if let last = lastFrame {
            let gap = timestamp.milliseconds(since: last.instant)
            if gap > configuration.maximumGapMs {
                counters.discontinuities += 1
                if captureRequested { counters.interruptedFreezes += 1 }
                restartSequence()
            } else {
                account(gap: gap, expectedMs: last.durationMs, from: last.instant, tally: index)
                advanceFPSWindow(to: timestamp)
            }
        }
        if fpsWindow == nil { fpsWindow = (timestamp, 0) }
        lastFrame = (timestamp, frameDurationMs)

        if reportWindowStart == nil { reportWindowStart = timestamp }
        var outputs: [FrameMonitorOutput] = []
        closeReportsIfDue(at: timestamp, outputs: &outputs)
        return outputs
    }

    private mutating func account(gap: Double, expectedMs: Double, from start: MonotonicInstant, tally index: Int) {
        let dropped = max(0, Int(((gap - expectedMs) / expectedMs).rounded()))
        tallies[index].intervals += 1
        tallies[index].activeMs += gap
        tallies[index].dropped += dropped
        if dropped >= configuration.slowDroppedFrames { tallies[index].slow += 1 }
        if dropped >= configuration.severeDroppedFrames { tallies[index].severe += 1 }
        if gap >= configuration.frozenFrameMs {
            tallies[index].frozen += 1
            if tallies[index].frozenFrames.count < configuration.maxFrozenFramesPerReport {
                tallies[index].frozenFrames.append(
                    FrozenFrame(start: clock.wallTime(of: start), durationMs: gap, stack: pendingStack))
            } else {
                counters.unlistedFrozenFrames += 1
            }
        }
        // A rendered frame is the recovery: the next freeze gets its own capture.
        freezeArmed = true
        captureRequested = false
        pendingStack = nil
    }

    private mutating func advanceFPSWindow(to instant: MonotonicInstant) {
        guard var window = fpsWindow else { return }
        window.intervals += 1
        let elapsed = instant.milliseconds(since: window.start)
        if elapsed >= configuration.minimumWindowMs {
            currentFPS = Double(window.intervals) / (elapsed / 1000)
            window = (instant, 0)
        }
        fpsWindow = window
    }

    // MARK: - Freezes

    /// Called by the watchdog at `now`: requests one stack capture when no frame has been
    /// rendered for the frozen-frame threshold, and closes the report window when it is due even
    /// if no frames arrive.
    public mutating func check(at now: MonotonicInstant) -> [FrameMonitorOutput] {
        switch checkOrder.admit(now) {
        case .accepted, .resynchronized:
            break
        case .duplicate:
            return []
        case .rejected:
            counters.outOfOrderInputs += 1
            return []
        }
        var outputs: [FrameMonitorOutput] = []
        if isMonitoring, freezeArmed, let last = lastFrame {
            let silent = now.milliseconds(since: last.instant)
            if silent >= configuration.frozenFrameMs && silent <= configuration.maximumGapMs {
                freezeArmed = false
                captureRequested = true
                counters.captureRequests += 1
                outputs.append(.captureStackRequested)
            }
        }
        closeReportsIfDue(at: now, outputs: &outputs)
        return outputs
    }

    /// Feeds the main-thread stack (innermost first) captured after a
    /// ``FrameMonitorOutput/captureStackRequested``; it is attached to the frozen frame when the
    /// next frame ends the freeze. A stack nobody asked for is counted and dropped.
    public mutating func recordFreezeStack(_ frames: [Address], at instant: MonotonicInstant) {
        guard captureRequested, pendingStack == nil, let last = lastFrame, instant >= last.instant else {
            counters.unexpectedStacks += 1
            return
        }
        pendingStack = Array(frames.prefix(SanitizerLimits().maxFramesPerStack))
    }

    // MARK: - Context

    /// Attributes frames from `instant` on to `page`.
    public mutating func pageChanged(to page: String?, at instant: MonotonicInstant) {
        guard admitControl(instant) else { return }
        currentPage = page
    }

    /// Feeds an app state change; frames are measured only in the foreground (or inactive).
    public mutating func appStateChanged(_ state: AppState, at instant: MonotonicInstant) {
        guard admitControl(instant) else { return }
        let was = isMonitoring
        appState = state
        if was && !isMonitoring { stopSequence() }
    }

    /// Stops measuring (calls nest), e.g. when the display link is paused because nothing
    /// animates: the silence that follows is not a freeze.
    public mutating func pause(at instant: MonotonicInstant) {
        guard admitControl(instant) else { return }
        let was = isMonitoring
        pauseDepth += 1
        if was && !isMonitoring { stopSequence() }
    }

    /// Ends one ``pause(at:)``; measuring restarts with the next frame.
    public mutating func resume(at instant: MonotonicInstant) {
        guard admitControl(instant) else { return }
        guard pauseDepth > 0 else {
            counters.unbalancedResumes += 1
            return
        }
        pauseDepth -= 1
    }

    // MARK: - Reports

    /// Closes page statistics into payloads now. Pages covering less than the minimum window
    /// are kept for the next report, or, when `final` (the app is going away), discarded and
    /// counted.
    public mutating func flush(at instant: MonotonicInstant, final: Bool = false) -> [FramesPayload] {
        let payloads = closeReports(at: instant)
        if final {
            counters.discardedShortWindows += tallies.count
            tallies.removeAll()
        }
        return payloads
    }

    private mutating func closeReportsIfDue(at instant: MonotonicInstant, outputs: inout [FrameMonitorOutput]) {
        guard let start = reportWindowStart,
              instant.milliseconds(since: start) >= configuration.reportIntervalMs else { return }
        outputs.append(contentsOf: closeReports(at: instant).map(FrameMonitorOutput.report))
    }

    private mutating func closeReports(at instant: MonotonicInstant) -> [FramesPayload] {
        reportWindowStart = instant
        var payloads: [FramesPayload] = []
        var carried: [PageFrameTally] = []
        for tally in tallies {
            guard tally.activeMs >= configuration.minimumWindowMs, tally.intervals > 0 else {
                carried.append(tally)
                continue
            }
            let longest = tally.frozenFrames.max { $0.durationMs < $1.durationMs }
            payloads.append(FramesPayload(
                page: tally.page, windowStart: clock.wallTime(of: tally.firstFrame),
                windowEnd: clock.wallTime(of: tally.lastFrame), frames: tally.frames,
                fps: Double(tally.intervals) / (tally.activeMs / 1000), refreshRate: tally.refreshRate,
                dropped: tally.dropped, slow: tally.slow, severe: tally.severe, frozen: tally.frozen,
                durationMs: longest?.durationMs, stack: longest?.stack,
                frozenFrames: tally.frozenFrames.isEmpty ? nil : tally.frozenFrames))
        }
        tallies = carried
        return payloads
    }

    // MARK: - Helpers

    private mutating func tallyIndex(for page: String?, at instant: MonotonicInstant) -> Int {
        if let index = tallies.firstIndex(where: { $0.page == page }) { return index }
        if tallies.count >= configuration.maxPagesPerReport {
            counters.pageOverflowFrames += 1
            if let index = tallies.firstIndex(where: { $0.page == Self.overflowPage }) { return index }
            tallies.append(PageFrameTally(page: Self.overflowPage, at: instant))
            return tallies.count - 1
        }
        tallies.append(PageFrameTally(page: page, at: instant))
        return tallies.count - 1
    }

    private mutating func stopSequence() {
        if captureRequested { counters.interruptedFreezes += 1 }
        restartSequence()
    }

    private mutating func restartSequence() {
        lastFrame = nil
        fpsWindow = nil
        freezeArmed = true
        captureRequested = false
        pendingStack = nil
    }

    private mutating func admitControl(_ instant: MonotonicInstant) -> Bool {
        if controlOrder.admit(instant) == .rejected {
            counters.outOfOrderInputs += 1
            return false
        }
        return true
    }
}
