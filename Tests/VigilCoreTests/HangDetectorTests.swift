import Foundation
import Testing
import VigilCore

@Suite("Hang detector: turns, thresholds, sampling")
struct HangDetectorThresholdTests {
    @Test("a busy turn past the threshold is one hang with its real start, end and duration")
    func thresholdCrossing() throws {
        let scenario = HangScenario()
        let wallStart = scenario.clock.wallNow()
        scenario.busyTurn(2500)
        let reports = scenario.reports
        try #require(reports.count == 1)
        let hang = reports[0]
        #expect(hang.durationMs == 2500)
        #expect(abs(hang.start.timeIntervalSince(wallStart)) < 1e-4)  // the schema keeps milliseconds
        #expect(abs(hang.end.timeIntervalSince(wallStart) - 2.5) < 1e-4)
        #expect(hang.kind == .fullyBlocking)
        #expect(hang.thresholdMs == 2000)
        #expect(hang.runLoopActivity == "afterWaiting")
        #expect(scenario.began.count == 1)
        #expect(scenario.outcomes == [.reported])
        // The marker sequence: began, then ended, then the report.
        guard case .hangBegan = scenario.outputs[0], case .hangEnded = scenario.outputs[1],
              case .report = scenario.outputs[2] else {
            Issue.record("unexpected output order \(scenario.outputs)")
            return
        }
        #expect(scenario.detector.counters.hangsReported == 1)
    }

    @Test("a busy turn just under the threshold is not a hang")
    func underThreshold() {
        let scenario = HangScenario()
        scenario.busyTurn(1999)
        #expect(scenario.outputs.isEmpty)
        #expect(scenario.detector.counters.hangsBegan == 0)
        #expect(scenario.detector.counters.slowTurns == 1)
    }

    @Test("later busy activities do not restart the turn: Entry through BeforeWaiting is one turn")
    func busyTurnSemantics() throws {
        let scenario = HangScenario()
        scenario.activity(.entry)
        scenario.advance(by: 1200)
        scenario.activity(.beforeTimers)
        scenario.advance(by: 600)
        scenario.activity(.beforeSources)
        scenario.advance(by: 700)
        scenario.activity(.beforeWaiting)
        let hang = try #require(scenario.reports.first)
        #expect(hang.durationMs == 2500)
        #expect(hang.runLoopActivity == "entry")
    }

    @Test("Exit ends a busy turn like BeforeWaiting")
    func exitEndsTurn() {
        let scenario = HangScenario()
        scenario.activity(.beforeSources)
        scenario.advance(by: 2100)
        scenario.activity(.exit)
        #expect(scenario.reports.map(\.durationMs) == [2100])
        #expect(!scenario.detector.isTurnBusy)
    }

    @Test("the threshold can be configured down to 100 ms and no lower", arguments: [
        (configured: 100.0, turn: 150.0, hang: true),
        (configured: 100.0, turn: 90.0, hang: false),
        (configured: 20.0, turn: 90.0, hang: false),   // clamped to 100
        (configured: 20.0, turn: 120.0, hang: true),
        (configured: 250.0, turn: 400.0, hang: true),
        (configured: 250.0, turn: 150.0, hang: false),
    ])
    func lowThreshold(configured: Double, turn: Double, hang: Bool) {
        let scenario = HangScenario { $0.thresholdMs = configured }
        #expect(scenario.detector.currentThresholdMs == max(configured, 100))
        scenario.busyTurn(turn)
        #expect(scenario.reports.count == (hang ? 1 : 0))
        if hang { #expect(scenario.reports.first?.durationMs == turn) }
    }

    @Test("a hang past 8 s is fatal-class, and the marker says so when it crosses")
    func fatalClass() throws {
        let scenario = HangScenario()
        scenario.busyTurn(9000)
        let hang = try #require(scenario.reports.first)
        #expect(hang.kind == .fatal)
        let updates = scenario.updated
        // Refreshed once a second after the 2 s threshold: 3, 4, 5, 6, 7, 8 (crossing), 9 s.
        #expect(updates.count == 7)
        #expect(updates.filter(\.pastFatalThreshold).count == 2)
        #expect(updates.first { $0.pastFatalThreshold }?.durationMs == 8000)
    }

    @Test("a marker left behind by a killed process becomes a fatal hang; it round-trips as JSON")
    func markerToFatal() throws {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        scenario.advance(by: 3100)
        let marker = try #require(scenario.detector.marker(at: scenario.now))
        #expect(marker.durationMs == 3100)
        #expect(marker.sampleCount == scenario.samplesTaken)
        let data = try JSONEncoder().encode(marker)
        let decoded = try JSONDecoder().decode(HangMarker.self, from: data)
        #expect(decoded == marker)
        let fatal = decoded.fatalPayload()
        #expect(fatal.kind == .fatal)
        #expect(fatal.durationMs == 3100)
        #expect(fatal.hotStack == scenario.mainStack)
        #expect(fatal.end == marker.lastSeen)
    }

    @Test("samples are requested from threshold/4 on, every 50 ms, and the watchdog ticks exactly then")
    func samplingCadence() throws {
        let scenario = HangScenario()
        #expect(scenario.detector.samplingStartMs == 500)
        #expect(scenario.detector.idleTickIntervalMs == 500)
        scenario.busyTurn(2500)
        // Samples at 500, 550, …, 2500 ms.
        #expect(scenario.samplesTaken == 41)
        let hang = try #require(scenario.reports.first)
        #expect(hang.sampleCount == 41)
        #expect(hang.stacks == [StackCount(frames: scenario.mainStack, count: 41)])
        #expect(hang.hotStack == scenario.mainStack)
    }

    @Test("an explicit sampling start overrides threshold/4")
    func explicitSamplingStart() {
        let scenario = HangScenario { $0.samplingStartMs = 1000 }
        scenario.busyTurn(2000)
        // Samples at 1000, 1050, …, 2000 ms.
        #expect(scenario.samplesTaken == 21)
    }

    @Test("idle ticks come every sampling start; no sample is requested while idle")
    func idleTicks() {
        let clock = TestClock()
        var detector = HangDetector(clock: clock)
        let first = detector.watchdogTick(scheduled: clock.monotonicNow(), actual: clock.monotonicNow())
        #expect(!first.takeSample)
        #expect(first.nextTick.milliseconds(since: clock.monotonicNow()) == 500)
        #expect(first.outputs.isEmpty)
    }

    @Test("the sample ring stays bounded: it thins to every other sample and halves the cadence")
    func ringBounds() throws {
        let scenario = HangScenario { $0.sampleRingCapacity = 16 }
        let x = HangScenario.stack(0x10, 0xA, 0xB)
        let y = HangScenario.stack(0x20, 0xA, 0xB)
        scenario.mainStack = x
        scenario.activity(.afterWaiting)
        var maxHeld = 0
        for _ in 0..<50 {
            scenario.advance(by: 100)
            maxHeld = max(maxHeld, scenario.detector.heldSampleCount)
        }
        scenario.mainStack = y
        for _ in 0..<50 {
            scenario.advance(by: 100)
            maxHeld = max(maxHeld, scenario.detector.heldSampleCount)
        }
        scenario.activity(.beforeWaiting)
        #expect(maxHeld <= 16)
        #expect(scenario.detector.counters.ringThinnings >= 2)
        let hang = try #require(scenario.reports.first)
        #expect(hang.durationMs == 10_000)
        let total = try #require(hang.sampleCount)
        #expect(total <= 16)
        // X ran 4.5 s of the sampled 9.5 s, Y 5 s: the thinned samples keep that proportion.
        let countX = hang.stacks.first { $0.frames == x }?.count ?? 0
        let countY = hang.stacks.first { $0.frames == y }?.count ?? 0
        #expect(countX + countY == total)
        #expect(abs(countX - countY) <= 2)
        // The part X and Y share is in the hot stack.
        #expect(hang.hotStack?.suffix(2) == HangScenario.stack(0xA, 0xB)[...])
    }

    @Test("deep stacks are cut to the frame limit, innermost frames kept")
    func frameLimit() throws {
        let scenario = HangScenario { $0.maxFramesPerSample = 4 }
        scenario.mainStack = (1...10).map { Address(UInt64($0)) }
        scenario.busyTurn(2100)
        let hang = try #require(scenario.reports.first)
        #expect(hang.stacks.first?.frames == (1...4).map { Address(UInt64($0)) })
        #expect(scenario.detector.counters.truncatedSamples == scenario.samplesTaken)
    }

    @Test("a turn that ends past the threshold between ticks is a hang while the watchdog is live")
    func liveWatchdogCatchesTurnEnd() {
        let clock = TestClock()
        var detector = HangDetector(configuration: { var c = HangConfiguration(); c.thresholdMs = 1000; return c }(),
                                    clock: clock)
        let start = clock.monotonicNow()
        _ = detector.watchdogTick(scheduled: start, actual: start)  // next tick in 250 ms
        clock.advance(byMilliseconds: 1)
        _ = detector.runLoopActivity(.afterWaiting, at: clock.monotonicNow())
        clock.advance(byMilliseconds: 1099)
        let outputs = detector.runLoopActivity(.beforeWaiting, at: clock.monotonicNow())
        #expect(outputs.count == 3)
        if case .report(let hang) = outputs.last { #expect(hang.durationMs == 1099) } else {
            Issue.record("expected a report, got \(outputs)")
        }
    }

    @Test("with no live watchdog a long turn is counted as unobserved, not reported")
    func unobservedTurn() {
        let scenario = HangScenario()
        scenario.watchdogRunning = false
        scenario.busyTurn(3000)
        #expect(scenario.outputs.isEmpty)
        #expect(scenario.detector.counters.unobservedLongTurns == 1)
    }
}

@Suite("Hang detector: false-positive guards")
struct HangDetectorGuardTests {
    @Test("no hang is measured while the app is in the background or suspended",
          arguments: [AppState.background, .suspended])
    func background(state: AppState) {
        let scenario = HangScenario(appState: state)
        #expect(!scenario.detector.isMonitoring)
        scenario.busyTurn(5000)
        #expect(scenario.outputs.isEmpty)
        #expect(scenario.samplesTaken == 0)
        #expect(scenario.detector.counters.slowTurns == 0)
    }

    @Test("an inactive app (system overlay) is still monitored")
    func inactiveIsMonitored() {
        let scenario = HangScenario(appState: .inactive)
        scenario.busyTurn(2500)
        #expect(scenario.reports.count == 1)
    }

    @Test("coming to the foreground mid-turn measures the turn from that moment")
    func foregroundMidTurn() throws {
        let scenario = HangScenario(appState: .background)
        scenario.activity(.afterWaiting)
        scenario.advance(by: 3000)
        scenario.take(scenario.detector.appStateChanged(.foreground, at: scenario.now))
        scenario.advance(by: 2500)
        scenario.activity(.beforeWaiting)
        let hang = try #require(scenario.reports.first)
        #expect(hang.durationMs == 2500)
    }

    @Test("a hang in progress when the app leaves the foreground is reported, cut at that moment")
    func backgroundCutsHang() throws {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        scenario.advance(by: 3000)
        scenario.take(scenario.detector.appStateChanged(.background, at: scenario.now))
        scenario.advance(by: 4000)
        scenario.activity(.beforeWaiting)
        #expect(scenario.reports.map(\.durationMs) == [3000])
        #expect(scenario.outcomes == [.reported])
        #expect(scenario.detector.counters.hangsCutByMonitoringStop == 1)
    }

    @Test("a watchdog tick far later than scheduled is a suspension: the turn is measured afresh")
    func suspensionBeforeThreshold() {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        scenario.advance(by: 300)                               // ticks at 0; next due at 500
        scenario.advance(by: 5000, firstTickLateness: 4000)     // the 500 ms tick runs at 4500
        scenario.activity(.beforeWaiting)                       // 5300 ms after the start
        #expect(scenario.outputs.isEmpty)
        #expect(scenario.detector.counters.suspensions == 1)
    }

    @Test("a suspension during a hang ends it unreported")
    func suspensionDuringHang() {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        scenario.advance(by: 2600)
        #expect(scenario.detector.isHangInProgress)
        scenario.advance(by: 5000, firstTickLateness: 4000)
        scenario.activity(.beforeWaiting)
        #expect(scenario.outcomes == [.suspended])
        #expect(scenario.reports.isEmpty)
    }

    @Test("a tick late by less than the tolerance is not a suspension")
    func lateTickWithinTolerance() {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        scenario.advance(by: 2500, firstTickLateness: 900)
        scenario.activity(.beforeWaiting)
        #expect(scenario.detector.counters.suspensions == 0)
        #expect(scenario.reports.count == 1)
    }

    @Test("pause stops detection until resume; pauses nest; an unmatched resume is counted")
    func pauseResume() {
        let scenario = HangScenario()
        scenario.take(scenario.detector.pause(at: scenario.now))
        scenario.take(scenario.detector.pause(at: scenario.now))
        scenario.busyTurn(3000)
        scenario.take(scenario.detector.resume(at: scenario.now))
        #expect(!scenario.detector.isMonitoring)
        scenario.busyTurn(3000)
        #expect(scenario.outputs.isEmpty)
        scenario.take(scenario.detector.resume(at: scenario.now))
        #expect(scenario.detector.isMonitoring)
        scenario.take(scenario.detector.resume(at: scenario.now))
        #expect(scenario.detector.counters.unbalancedResumes == 1)
        scenario.busyTurn(2500)
        #expect(scenario.reports.count == 1)
    }

    @Test("resuming in the middle of a busy turn measures it from the resume")
    func resumeMidTurn() throws {
        let scenario = HangScenario()
        scenario.take(scenario.detector.pause(at: scenario.now))
        scenario.activity(.afterWaiting)
        scenario.advance(by: 1500)
        scenario.take(scenario.detector.resume(at: scenario.now))
        scenario.advance(by: 1800)
        scenario.activity(.beforeWaiting)
        #expect(scenario.reports.isEmpty)
        scenario.busyTurn(2200)
        #expect(try #require(scenario.reports.first).durationMs == 2200)
    }
}

@Suite("Hang detector: dynamic threshold, slow turns, blocking kinds")
struct HangDetectorBehaviourTests {
    @Test("lowering the threshold catches shorter hangs; restoring it stops that")
    func lowerAndRestore() throws {
        let scenario = HangScenario()
        scenario.detector.lowerThreshold(at: scenario.now)
        #expect(scenario.detector.currentThresholdMs == 1000)
        #expect(scenario.detector.samplingStartMs == 250)
        scenario.busyTurn(1200)
        let hang = try #require(scenario.reports.first)
        #expect(hang.thresholdMs == 1000)
        scenario.advance(by: 10_000)
        scenario.detector.restoreThreshold(at: scenario.now)
        #expect(scenario.detector.currentThresholdMs == 2000)
        scenario.busyTurn(1200)
        #expect(scenario.reports.count == 1)
    }

    @Test("a lowered threshold with a deadline recovers by itself at the first tick after it")
    func loweredUntilDeadline() {
        let scenario = HangScenario { $0.loweredThresholdMs = 400 }
        scenario.detector.lowerThreshold(until: scenario.now.advanced(byMilliseconds: 5000), at: scenario.now)
        #expect(scenario.detector.currentThresholdMs == 400)
        scenario.advance(by: 4000)
        #expect(scenario.detector.currentThresholdMs == 400)
        scenario.advance(by: 2000)
        #expect(scenario.detector.currentThresholdMs == 2000)
    }

    @Test("setThreshold clamps to 100 ms … below the fatal threshold")
    func setThresholdClamps() {
        let scenario = HangScenario()
        let results = [50, 1e9, .nan, 700].map { scenario.detector.setThreshold($0, at: scenario.now) }
        #expect(results == [100, 7999, 7999, 700])
        #expect(scenario.detector.counters.absurdInputs == 1)
    }

    @Test("a hang keeps the threshold it began with when the threshold changes during it")
    func thresholdChangeDuringHang() throws {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        scenario.advance(by: 2200)
        scenario.detector.setThreshold(5000, at: scenario.now)
        scenario.advance(by: 300)
        scenario.activity(.beforeWaiting)
        #expect(try #require(scenario.reports.first).thresholdMs == 2000)
    }

    @Test("turns of 250 ms or more are counted as slow turns, without stacks")
    func slowTurns() {
        let scenario = HangScenario()
        for duration in [300.0, 200, 260, 249, 250, 2100] {
            scenario.busyTurn(duration)
            scenario.advance(by: 20)
        }
        #expect(scenario.detector.counters.slowTurns == 4)
        #expect(scenario.reports.count == 1)
    }

    /// Runs a 2.5 s hang during which a frame is rendered at each of `frameTimes` (ms after
    /// the turn began, 60 Hz frame duration).
    private func hang(withFramesAt frameTimes: [Double]) -> HangScenario {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        var elapsed = 0.0
        for time in frameTimes {
            scenario.advance(by: time - elapsed)
            elapsed = time
            scenario.detector.frameRendered(at: scenario.now, frameDurationMs: 1000.0 / 60)
        }
        scenario.advance(by: 2500 - elapsed)
        scenario.activity(.beforeWaiting)
        return scenario
    }

    @Test("no frame during the hang: fullyBlocking")
    func fullyBlocking() {
        #expect(hang(withFramesAt: []).reports.first?.kind == .fullyBlocking)
    }

    @Test("a few frames but late for at least 95% of the hang: nonFullyBlocking")
    func nonFullyBlocking() {
        let scenario = hang(withFramesAt: [1000])
        #expect(scenario.reports.first?.kind == .nonFullyBlocking)
    }

    @Test("frames kept coming: the main thread was responsive and no hang is reported")
    func responsive() {
        let frames = stride(from: 1000.0 / 60, through: 2490, by: 1000.0 / 60).map { $0 }
        let scenario = hang(withFramesAt: frames)
        #expect(scenario.reports.isEmpty)
        #expect(scenario.outcomes == [.responsive])
        #expect(scenario.detector.counters.hangsNotReported[.responsive] == 1)
    }
}

@Suite("Hang detector: annealing and daily cap")
struct HangDetectorSuppressionTests {
    @Test("the same hot stack again before recovery is annealed; a new stack or a recovery is reported")
    func annealing() {
        let scenario = HangScenario()
        let s = HangScenario.stack(0xA, 0xB)
        let t = HangScenario.stack(0xC, 0xB)
        scenario.busyTurn(2500, stack: s)
        scenario.advance(by: 100)
        scenario.busyTurn(2500, stack: s)       // starts 100 ms after: window is 1 s → annealed
        scenario.advance(by: 100)
        scenario.busyTurn(2500, stack: t)       // another stack → reported
        scenario.advance(by: 100)
        scenario.busyTurn(2500, stack: s)       // s again, but t was the previous report → reported
        scenario.advance(by: 10_000)
        scenario.busyTurn(2500, stack: s)       // 10 s hang-free: recovered → reported
        #expect(scenario.outcomes == [.reported, .annealed, .reported, .reported, .reported])
        #expect(scenario.reports.map(\.hotStack) == [s, t, s, s])
    }

    @Test("the recovery window backs off 1, 2, 3, 5, 8 periods while the stack repeats")
    func backoffInDetector() {
        let scenario = HangScenario()
        let s = HangScenario.stack(0xA, 0xB)
        scenario.busyTurn(2500, stack: s)
        var windows: [Int] = []
        for _ in 0..<6 {
            scenario.advance(by: 500)
            scenario.busyTurn(2500, stack: s)
            windows.append(scenario.detector.annealingState.currentBackoffPeriods)
        }
        #expect(windows == [2, 3, 5, 8, 8, 8])
        #expect(scenario.reports.count == 1)
        // 7.9 s idle is not enough after an 8-period window; 8 s is.
        scenario.advance(by: 7900)
        scenario.busyTurn(2500, stack: s)
        #expect(scenario.reports.count == 1)
        scenario.advance(by: 8000)
        scenario.busyTurn(2500, stack: s)
        #expect(scenario.reports.count == 2)
        #expect(scenario.detector.annealingState.currentBackoffPeriods == 1)
    }

    @Test("at most N reports per top frame per day; the next day starts afresh; moving the clock back does not")
    func dailyCap() {
        let scenario = HangScenario { $0.dailyCapPerTopFrame = 2 }
        // Same top frame 0xA, different hot stacks (so annealing stays out of the way).
        let stacks = (1...6).map { HangScenario.stack(0xA, 0xB0 + UInt64($0)) }
        for stack in stacks.prefix(3) {
            scenario.busyTurn(2500, stack: stack)
            scenario.advance(by: 100)
        }
        #expect(scenario.outcomes == [.reported, .reported, .capped])
        // Another top frame is not affected.
        scenario.busyTurn(2500, stack: HangScenario.stack(0xF, 0xB))
        #expect(scenario.outcomes.last == .reported)

        let today = scenario.clock.wallNow()
        scenario.clock.setWall(today.addingTimeInterval(86_400))
        for stack in stacks.suffix(3) {
            scenario.busyTurn(2500, stack: stack)
            scenario.advance(by: 100)
        }
        #expect(Array(scenario.outcomes.suffix(3)) == [.reported, .reported, .capped])
        scenario.clock.setWall(today)
        scenario.busyTurn(2500, stack: stacks[0])
        #expect(scenario.outcomes.last == .capped)
        #expect(scenario.detector.counters.hangsNotReported[.capped] == 3)
    }

    @Test("a daily cap of 0 reports nothing")
    func zeroCap() {
        let scenario = HangScenario { $0.dailyCapPerTopFrame = 0 }
        scenario.busyTurn(2500)
        #expect(scenario.reports.isEmpty)
        #expect(scenario.outcomes == [.capped])
    }
}
