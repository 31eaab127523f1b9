import Foundation
import Testing
import VigilCore

@Suite("Detector inputs out of order, duplicated or absurd")
struct HangDetectorBadInputTests {
    @Test("the order guard accepts forward inputs, flags repeats and rejects the past, then resynchronises")
    func orderGuard() {
        var guardian = InputOrderGuard(resynchronizeAfter: 2)
        let admissions = [10.0, 10, 5, 6, 7, 8].map { guardian.admit(.milliseconds($0)) }
        #expect(admissions == [.accepted, .duplicate, .rejected, .rejected, .resynchronized, .accepted])
        #expect(guardian.last == .milliseconds(8))
    }

    @Test("an activity older than the previous one is skipped and counted")
    func outOfOrderActivity() {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        scenario.advance(by: 100)
        scenario.take(scenario.detector.runLoopActivity(.beforeWaiting, at: scenario.now.advanced(byMilliseconds: -150)))
        #expect(scenario.detector.counters.outOfOrderInputs == 1)
        #expect(scenario.detector.isTurnBusy)
        scenario.advance(by: 2400)
        scenario.activity(.beforeWaiting)
        #expect(scenario.reports.map(\.durationMs) == [2500])
    }

    @Test("a repeated activity at the same instant is a duplicate; sequence violations are counted")
    func duplicatesAndSequence() {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        scenario.activity(.afterWaiting)            // same instant, same activity
        #expect(scenario.detector.counters.duplicateInputs == 1)
        scenario.advance(by: 10)
        scenario.activity(.afterWaiting)            // AfterWaiting while busy
        scenario.advance(by: 10)
        scenario.activity(.beforeWaiting)
        scenario.advance(by: 10)
        scenario.activity(.beforeWaiting)           // BeforeWaiting while idle
        #expect(scenario.detector.counters.sequenceViolations == 2)
        scenario.activity(.exit)                    // Exit while idle is legitimate
        #expect(scenario.detector.counters.sequenceViolations == 2)
    }

    @Test("one absurd future timestamp does not starve the stream: it resynchronises and detection goes on")
    func resynchronisation() {
        let scenario = HangScenario()
        scenario.take(scenario.detector.runLoopActivity(.afterWaiting, at: scenario.now.advanced(byMilliseconds: 3_600_000)))
        for _ in 0..<4 {
            scenario.advance(by: 10)
            scenario.activity(.beforeSources)
        }
        #expect(scenario.detector.counters.outOfOrderInputs == 3)
        #expect(scenario.detector.counters.resynchronizations == 1)
        scenario.activity(.beforeWaiting)
        scenario.busyTurn(2500)
        #expect(scenario.reports.map(\.durationMs) == [2500])
    }

    @Test("lost activities abandon the busy turn instead of stretching it into a false hang")
    func lostActivities() {
        let scenario = HangScenario()
        scenario.activity(.afterWaiting)
        scenario.advance(by: 1500)
        // The turn ended and others ran, but those activities were lost; the next one seen is busy.
        scenario.take(scenario.detector.runLoopActivitiesLost(at: scenario.now))
        #expect(!scenario.detector.isTurnBusy)
        scenario.advance(by: 100)
        scenario.activity(.beforeWaiting)            // the first activity after a loss is not a violation
        scenario.activity(.afterWaiting)
        scenario.advance(by: 1000)
        scenario.activity(.beforeWaiting)
        #expect(scenario.outputs.isEmpty)
        #expect(scenario.detector.counters.lostActivityGaps == 1)
        #expect(scenario.detector.counters.sequenceViolations == 0)
    }

    @Test("absurd frame durations, empty stacks and stray samples are skipped and counted")
    func absurdValues() {
        let scenario = HangScenario()
        for duration in [Double.nan, .infinity, 0, -16, 5000] {
            scenario.detector.frameRendered(at: scenario.now, frameDurationMs: duration)
        }
        #expect(scenario.detector.counters.absurdInputs == 5)
        scenario.detector.recordSample([], at: scenario.now)
        #expect(scenario.detector.counters.absurdInputs == 6)
        scenario.detector.recordSample([Address(1)], at: scenario.now.advanced(byMilliseconds: 1))
        #expect(scenario.detector.counters.samplesOutsideTurn == 1)
        scenario.detector.recordSampleFailure(at: scenario.now)
        #expect(scenario.detector.counters.sampleFailures == 1)
    }

    @Test("a sample or frame stream stuck in the past is resynchronised and counted like the other streams",
          arguments: [true, false])
    func sampleAndFrameResynchronisationCounted(samples: Bool) {
        let clock = TestClock()
        var detector = HangDetector(clock: clock)
        let start = clock.monotonicNow()
        func feed(_ instant: MonotonicInstant) {
            if samples {
                detector.recordSample([Address(1)], at: instant)
            } else {
                detector.frameRendered(at: instant, frameDurationMs: 16.7)
            }
        }
        feed(start.advanced(byMilliseconds: 3_600_000))  // one absurd future timestamp
        for step in 1...4 { feed(start.advanced(byMilliseconds: Double(step))) }
        #expect(detector.counters.outOfOrderInputs == 3)
        #expect(detector.counters.resynchronizations == 1)
    }

    @Test("a flood of samples into the smallest ring doubles the sampling interval up to an hour, without trapping")
    func sampleFloodDoesNotTrap() {
        var configuration = HangConfiguration()
        configuration.sampleRingCapacity = 2
        let clock = TestClock()
        var detector = HangDetector(configuration: configuration, clock: clock)
        let start = clock.monotonicNow()
        _ = detector.runLoopActivity(.afterWaiting, at: start)
        // Each sample past the second thins the full ring and doubles the interval: 50 ms × 2^98
        // would be far beyond what a 64-bit nanosecond clock can hold.
        for index in 1...100 {
            detector.recordSample([Address(1)], at: start.advanced(byMilliseconds: Double(index)))
        }
        #expect(detector.counters.ringThinnings == 98)
        let tick = detector.watchdogTick(scheduled: start.advanced(byMilliseconds: 500), actual: start.advanced(byMilliseconds: 500))
        #expect(!tick.takeSample)
        #expect(tick.nextTick > start.advanced(byMilliseconds: 500))
    }

    @Test("a tick from the past is skipped, and the next tick is still in the future")
    func pastTick() {
        let clock = TestClock()
        var detector = HangDetector(clock: clock)
        let now = clock.monotonicNow()
        _ = detector.watchdogTick(scheduled: now, actual: now)
        let stale = now.advanced(byMilliseconds: -100)
        let result = detector.watchdogTick(scheduled: stale, actual: stale)
        #expect(detector.counters.outOfOrderInputs == 1)
        #expect(result.nextTick > stale)
        #expect(!result.takeSample)
    }

    @Test("a hang that a tick began but whose turn ended below the threshold is closed, not reported")
    func crossedDelivery() {
        let clock = TestClock()
        var detector = HangDetector(clock: clock)
        let start = clock.monotonicNow()
        _ = detector.runLoopActivity(.afterWaiting, at: start)
        _ = detector.watchdogTick(scheduled: start, actual: start)
        clock.advance(byMilliseconds: 2100)
        let tick = detector.watchdogTick(scheduled: clock.monotonicNow(), actual: clock.monotonicNow())
        #expect(tick.outputs.count == 1)
        // The main thread had actually reached BeforeWaiting at 1.9 s; its callback is delivered late.
        let outputs = detector.runLoopActivity(.beforeWaiting, at: start.advanced(byMilliseconds: 1900))
        #expect(outputs.count == 1)
        if case .hangEnded(let marker, let outcome) = outputs.first {
            #expect(outcome == .belowThreshold)
            #expect(marker.durationMs == 1900)
        } else {
            Issue.record("expected hangEnded, got \(outputs)")
        }
        #expect(!detector.isHangInProgress)
    }

    @Test("random interleavings of every input never trap and keep began/ended balanced", arguments: [1, 2, 3, 4])
    func randomInputs(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let clock = TestClock()
        var configuration = HangConfiguration()
        configuration.thresholdMs = 300
        configuration.sampleRingCapacity = 8
        var detector = HangDetector(configuration: configuration, clock: clock)
        var outputs: [HangDetectorOutput] = []
        var nextTick = clock.monotonicNow()
        for _ in 0..<4000 {
            clock.advance(byMilliseconds: Double.random(in: 0...60, using: &random))
            // Inputs are stamped near now, sometimes in the past (delivery races, bad clocks).
            let jitter = Double.random(in: -200...5, using: &random)
            let stamp = clock.monotonicNow().advanced(byMilliseconds: jitter)
            switch Int.random(in: 0..<12, using: &random) {
            case 0...4:
                outputs += detector.runLoopActivity(RunLoopActivity.allCases[Int.random(in: 0..<6, using: &random)], at: stamp)
            case 5, 6:
                let result = detector.watchdogTick(scheduled: nextTick, actual: stamp)
                outputs += result.outputs
                nextTick = result.nextTick
                if result.takeSample { detector.recordSample([Address(UInt64.random(in: 1...3, using: &random))], at: stamp) }
            case 7:
                detector.frameRendered(at: stamp, frameDurationMs: Double.random(in: -5...40, using: &random))
            case 8:
                outputs += detector.appStateChanged(AppState.allCases[Int.random(in: 0..<4, using: &random)], at: stamp)
            case 9:
                outputs += Bool.random(using: &random) ? detector.pause(at: stamp) : detector.resume(at: stamp)
            case 10:
                detector.setThreshold(Double.random(in: -100...3000, using: &random), at: stamp)
            default:
                detector.recordSample(Bool.random(using: &random) ? [] : [Address(7)], at: stamp)
            }
        }
        var open = 0
        var lastEndedReported = false
        for output in outputs {
            switch output {
            case .hangBegan:
                #expect(open == 0)
                open += 1
                lastEndedReported = false
            case .hangUpdated:
                #expect(open == 1)
            case .hangEnded(let marker, let outcome):
                #expect(open == 1)
                #expect(marker.durationMs >= 0)
                open -= 1
                lastEndedReported = outcome == .reported
            case .report(let payload):
                #expect(lastEndedReported)
                #expect(payload.durationMs >= payload.thresholdMs)
                lastEndedReported = false
            }
        }
        #expect(open == (detector.isHangInProgress ? 1 : 0))
        let counters = detector.counters
        #expect(counters.hangsBegan == counters.hangsReported + counters.hangsNotReported.values.reduce(0, +) + open)
        #expect(counters.outOfOrderInputs > 0)
    }
}
