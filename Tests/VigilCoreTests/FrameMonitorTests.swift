import Foundation
import Testing
import VigilCore

/// Feeds a ``FrameMonitor`` display-link callbacks on a ``TestClock``.
final class FrameScenario {
    let clock = TestClock()
    var monitor: FrameMonitor
    private(set) var outputs: [FrameMonitorOutput] = []
    /// Frame duration the next callback announces, in ms.
    var durationMs: Double

    init(hz: Double = 60, page: String? = "Home", _ configure: (inout FrameConfiguration) -> Void = { _ in }) {
        var configuration = FrameConfiguration()
        configure(&configuration)
        durationMs = 1000 / hz
        monitor = FrameMonitor(configuration: configuration, clock: clock, page: page)
    }

    var now: MonotonicInstant { clock.monotonicNow() }

    /// One callback now.
    func frame() {
        outputs += monitor.frame(timestamp: now, targetTimestamp: now.advanced(byMilliseconds: durationMs))
    }

    /// `count` frames, each one frame duration after the previous.
    func frames(_ count: Int) {
        for _ in 0..<count {
            clock.advance(byMilliseconds: durationMs)
            frame()
        }
    }

    /// A frame `milliseconds` after the previous one.
    func gap(_ milliseconds: Double) {
        clock.advance(byMilliseconds: milliseconds)
        frame()
    }

    func check() { outputs += monitor.check(at: now) }

    var captureRequests: Int { outputs.filter { $0 == .captureStackRequested }.count }

    var reports: [FramesPayload] {
        outputs.compactMap { if case .report(let payload) = $0 { return payload } else { return nil } }
    }

    func flush(final: Bool = false) -> [FramesPayload] { monitor.flush(at: now, final: final) }
}

@Suite("Frame monitor: frame math")
struct FrameMathTests {
    @Test("a steady display runs at its refresh rate with nothing dropped", arguments: [60.0, 120.0])
    func steady(hz: Double) throws {
        let scenario = FrameScenario(hz: hz)
        scenario.frame()
        scenario.frames(Int(hz * 2))
        let payload = try #require(scenario.flush().first)
        #expect(payload.frames == Int(hz * 2) + 1)
        #expect(abs(payload.fps - hz) < 0.01)
        #expect(payload.refreshRate == hz)
        #expect(payload.dropped == 0 && payload.slow == 0 && payload.severe == 0 && payload.frozen == 0)
        #expect(abs((scenario.monitor.currentFPS ?? 0) - hz) < 0.01)
        #expect(abs(payload.windowEnd.timeIntervalSince(payload.windowStart) - 2) < 1e-6)
    }

    @Test("a gap of k+1 frame durations drops k frames, slow from 3, severe from 7", arguments:
          [60.0, 120.0], [0, 1, 2, 3, 6, 7, 10])
    func droppedPerGap(hz: Double, skipped: Int) throws {
        let scenario = FrameScenario(hz: hz)
        scenario.frame()
        scenario.frames(Int(hz))
        scenario.gap(Double(skipped + 1) * 1000 / hz)
        scenario.frames(10)
        let payload = try #require(scenario.flush().first)
        #expect(payload.dropped == skipped)
        #expect(payload.slow == (skipped >= 3 ? 1 : 0))
        #expect(payload.severe == (skipped >= 7 ? 1 : 0))
    }

    @Test("jitter rounds to the nearest frame", arguments: [(1.4, 0), (1.6, 1), (2.49, 1), (2.51, 2)])
    func rounding(multiple: Double, dropped: Int) throws {
        let scenario = FrameScenario(hz: 60)
        scenario.frame()
        scenario.frames(60)
        scenario.gap(multiple * 1000 / 60)
        #expect(try #require(scenario.flush().first).dropped == dropped)
    }

    @Test("switching between 60 and 120 Hz mid-run drops nothing, and drops after the switch count at the new rate")
    func refreshRateChange() throws {
        let scenario = FrameScenario(hz: 60)
        scenario.frame()
        scenario.frames(58)
        scenario.durationMs = 1000 / 120        // the last 60 Hz frame announces the new interval
        scenario.gap(1000 / 60)
        scenario.frames(120)
        #expect(abs((scenario.monitor.refreshRate ?? 0) - 120) < 0.01)
        scenario.gap(4 * 1000 / 120)           // 3 frames dropped at 120 Hz
        scenario.durationMs = 1000 / 60        // the last 120 Hz frame announces 60 Hz
        scenario.gap(1000 / 120)
        scenario.frames(60)
        let payload = try #require(scenario.flush().first)
        #expect(payload.dropped == 3)
        #expect(payload.slow == 1)
        #expect(payload.refreshRate == 60)
    }

    @Test("FPS counts only spans of at least one second")
    func fpsWindow() {
        let scenario = FrameScenario(hz: 60)
        scenario.frame()
        scenario.frames(30)
        #expect(scenario.monitor.currentFPS == nil)
        #expect(scenario.flush().isEmpty)   // half a second is not a window: carried over
        scenario.frames(31)
        #expect(scenario.monitor.currentFPS != nil)
        #expect(scenario.flush().count == 1)
    }
}

@Suite("Frame monitor: frozen frames")
struct FrozenFrameTests {
    @Test("a freeze asks for exactly one stack, attaches it, and re-arms after the next frame")
    func oneCapturePerFreeze() throws {
        let scenario = FrameScenario(hz: 60)
        scenario.frame()
        scenario.frames(60)
        for _ in 0..<9 {                        // checks every 100 ms through a 900 ms freeze
            scenario.clock.advance(byMilliseconds: 100)
            scenario.check()
            if scenario.monitor.isAwaitingFreezeStack {
                scenario.monitor.recordFreezeStack([Address(0xF00D), Address(0x1)], at: scenario.now)
            }
        }
        #expect(scenario.captureRequests == 1)
        scenario.frame()                        // the freeze ends at 900 ms
        scenario.frames(60)
        for _ in 0..<8 {                        // a second freeze of 800 ms
            scenario.clock.advance(byMilliseconds: 100)
            scenario.check()
        }
        #expect(scenario.captureRequests == 2)
        scenario.frame()
        scenario.frames(30)
        let payload = try #require(scenario.flush().first)
        #expect(payload.frozen == 2)
        #expect(payload.durationMs == 900)
        #expect(payload.stack == [Address(0xF00D), Address(0x1)])
        #expect(payload.frozenFrames?.map(\.durationMs) == [900, 800])
        #expect(payload.frozenFrames?.last?.stack == nil)   // nobody fed the second stack
        #expect(payload.slow == 2 && payload.severe == 2)
        #expect(scenario.monitor.counters.captureRequests == 2)
    }

    @Test("no capture before 700 ms of silence; a 699 ms gap is not frozen, 700 ms is")
    func frozenThreshold() throws {
        let scenario = FrameScenario(hz: 60)
        scenario.frame()
        scenario.frames(60)
        scenario.clock.advance(byMilliseconds: 699)
        scenario.check()
        #expect(scenario.captureRequests == 0)
        scenario.frame()
        scenario.gap(700)
        scenario.frames(10)
        #expect(try #require(scenario.flush().first).frozen == 1)
    }

    @Test("a stack nobody asked for is dropped and counted")
    func unexpectedStack() {
        let scenario = FrameScenario()
        scenario.frame()
        scenario.monitor.recordFreezeStack([Address(1)], at: scenario.now)
        #expect(scenario.monitor.counters.unexpectedStacks == 1)
    }

    @Test("silence in the background or while paused is not a freeze", arguments: [true, false])
    func backgroundAndPause(usePause: Bool) throws {
        let scenario = FrameScenario()
        scenario.frame()
        scenario.frames(60)
        if usePause { scenario.monitor.pause(at: scenario.now) } else {
            scenario.monitor.appStateChanged(.background, at: scenario.now)
        }
        scenario.clock.advance(byMilliseconds: 5000)
        scenario.check()
        scenario.frame()                          // ignored: not monitoring
        if usePause { scenario.monitor.resume(at: scenario.now) } else {
            scenario.monitor.appStateChanged(.foreground, at: scenario.now)
        }
        scenario.gap(10)
        scenario.frames(60)
        #expect(scenario.captureRequests == 0)
        let payload = try #require(scenario.flush().first)
        #expect(payload.frozen == 0 && payload.dropped == 0)
    }

    @Test("a freeze interrupted by the app leaving the foreground is counted, not reported")
    func interruptedFreeze() {
        let scenario = FrameScenario()
        scenario.frame()
        scenario.clock.advance(byMilliseconds: 800)
        scenario.check()
        scenario.monitor.appStateChanged(.background, at: scenario.now)
        #expect(scenario.monitor.counters.interruptedFreezes == 1)
    }
}

@Suite("Frame monitor: pages, reports and bad input")
struct FrameReportTests {
    @Test("statistics are kept per page; short pages carry over and are discarded only by a final flush")
    func perPage() {
        let scenario = FrameScenario(hz: 60, page: "A")
        scenario.frame()
        scenario.frames(90)
        scenario.monitor.pageChanged(to: "B", at: scenario.now)
        scenario.gap(4 * 1000 / 60)               // 3 dropped, on B
        scenario.frames(120)
        scenario.monitor.pageChanged(to: "C", at: scenario.now)
        scenario.frames(30)
        scenario.monitor.pageChanged(to: "A", at: scenario.now)
        scenario.frames(60)
        let payloads = scenario.flush()
        #expect(payloads.map(\.page) == ["A", "B"])
        #expect(payloads[0].frames == 151)
        #expect(abs(payloads[0].fps - 60) < 0.01)
        #expect(payloads[1].dropped == 3)
        let final = scenario.flush(final: true)
        #expect(final.isEmpty)
        #expect(scenario.monitor.counters.discardedShortWindows == 1)
    }

    @Test("reports close by themselves every report interval, from frames or from checks")
    func reportInterval() {
        let scenario = FrameScenario { $0.reportIntervalMs = 2000 }
        scenario.frame()
        scenario.frames(330)                       // 5.5 s: reports at 2 and 4 s
        #expect(scenario.reports.count == 2)
        scenario.clock.advance(byMilliseconds: 2500)
        scenario.check()                           // no frames for 2.5 s: the check closes the rest
        #expect(scenario.reports.count == 3)
        #expect(scenario.reports.allSatisfy { abs($0.fps - 60) < 0.01 })
    }

    @Test("frames beyond the page limit go to the overflow page")
    func pageOverflow() {
        let scenario = FrameScenario(page: "p0") { $0.maxPagesPerReport = 2 }
        for index in 0..<4 {
            scenario.monitor.pageChanged(to: "p\(index)", at: scenario.now)
            scenario.frames(70)
        }
        let pages = Set(scenario.flush().compactMap(\.page))
        #expect(pages == ["p0", "p1", FrameMonitor.overflowPage])
        #expect(scenario.monitor.counters.pageOverflowFrames == 140)
    }

    @Test("out-of-order, duplicate and absurd frames are skipped and counted; a huge gap is a discontinuity")
    func badFrames() throws {
        let scenario = FrameScenario()
        scenario.frame()
        scenario.frame()                                                // duplicate
        _ = scenario.monitor.frame(timestamp: scenario.now.advanced(byMilliseconds: -5), frameDurationMs: 16.7)
        for duration in [Double.nan, 0, -1, 1500] {
            _ = scenario.monitor.frame(timestamp: scenario.now.advanced(byMilliseconds: 1), frameDurationMs: duration)
        }
        let counters = scenario.monitor.counters
        #expect(counters.duplicateInputs == 1)
        #expect(counters.outOfOrderInputs == 1)
        #expect(counters.absurdInputs == 4)
        scenario.frames(70)
        scenario.gap(120_000)
        scenario.frames(70)
        #expect(scenario.monitor.counters.discontinuities == 1)
        let payload = try #require(scenario.flush().first)
        #expect(payload.frozen == 0)
        #expect(payload.dropped == 0)
    }
}
