import Foundation
import VigilCore

/// Drives a ``HangDetector`` the way the runtime does, on a ``TestClock``: the main thread feeds
/// activities, and a simulated watchdog ticks exactly when the detector asked (plus an optional
/// lateness), sampling the main thread's current stack whenever told to. Time moves only
/// through ``advance(by:)``.
final class HangScenario {
    let clock: TestClock
    var detector: HangDetector
    private(set) var outputs: [HangDetectorOutput] = []
    private(set) var nextTick: MonotonicInstant
    private(set) var samplesTaken = 0
    private(set) var ticks = 0
    /// What the main thread is executing, innermost first; sampled on request.
    var mainStack: [Address] = HangScenario.stack(0xA, 0xB, 0xC)
    /// Whether the watchdog is running at all.
    var watchdogRunning = true

    init(_ configure: (inout HangConfiguration) -> Void = { _ in }, appState: AppState = .foreground) {
        var configuration = HangConfiguration()
        configure(&configuration)
        clock = TestClock()
        detector = HangDetector(configuration: configuration, clock: clock, appState: appState)
        nextTick = clock.monotonicNow()
    }

    var now: MonotonicInstant { clock.monotonicNow() }

    /// A stack from outermost-last hex values: `stack(0xA, 0xB)` is `[0xA, 0xB]`, innermost `0xA`.
    static func stack(_ values: UInt64...) -> [Address] { values.map(Address.init) }

    func activity(_ activity: RunLoopActivity) {
        outputs += detector.runLoopActivity(activity, at: now)
    }

    /// A whole busy turn of `milliseconds`, opened by AfterWaiting and closed by BeforeWaiting.
    func busyTurn(_ milliseconds: Double, stack: [Address]? = nil) {
        if let stack { mainStack = stack }
        activity(.afterWaiting)
        activity(.beforeTimers)
        activity(.beforeSources)
        advance(by: milliseconds)
        activity(.beforeWaiting)
    }

    /// Moves time forward, ticking the watchdog at every tick that falls due (late by
    /// `lateness` ms, which only applies to the first tick).
    func advance(by milliseconds: Double, firstTickLateness lateness: Double = 0) {
        let target = now.advanced(byMilliseconds: milliseconds)
        var extraDelay = lateness
        while watchdogRunning, nextTick.advanced(byMilliseconds: extraDelay) <= target {
            let scheduled = nextTick
            let due = scheduled.advanced(byMilliseconds: extraDelay)
            if due > now { clock.advance(byMilliseconds: due.milliseconds(since: now)) }
            extraDelay = 0
            let result = detector.watchdogTick(scheduled: scheduled, actual: now)
            ticks += 1
            outputs += result.outputs
            if result.takeSample {
                samplesTaken += 1
                detector.recordSample(mainStack, at: now)
            }
            nextTick = result.nextTick
        }
        if target > now { clock.advance(byMilliseconds: target.milliseconds(since: now)) }
        if !watchdogRunning { nextTick = max(nextTick, now) }
    }

    func take(_ more: [HangDetectorOutput]) { outputs += more }

    var reports: [HangPayload] {
        outputs.compactMap { if case .report(let payload) = $0 { return payload } else { return nil } }
    }

    var began: [HangMarker] {
        outputs.compactMap { if case .hangBegan(let marker) = $0 { return marker } else { return nil } }
    }

    var updated: [HangMarker] {
        outputs.compactMap { if case .hangUpdated(let marker) = $0 { return marker } else { return nil } }
    }

    var ended: [(marker: HangMarker, outcome: HangOutcome)] {
        outputs.compactMap { if case .hangEnded(let marker, let outcome) = $0 { return (marker, outcome) } else { return nil } }
    }

    var outcomes: [HangOutcome] { ended.map(\.outcome) }
}
