import Foundation
import Testing
import VigilCore

@Suite("Launch timeline")
struct LaunchTimelineTests {
    /// A timeline created at SDK start, `sinceProcessStart` ms after the process started.
    private func timeline(_ facts: LaunchFacts = LaunchFacts(), sinceProcessStart: Double = 300,
                          clock: TestClock) -> LaunchTimeline {
        let processStart = clock.wallNow().addingTimeInterval(-sinceProcessStart / 1000)
        return LaunchTimeline(processStart: processStart, facts: facts, clock: clock)
    }

    private func after(_ clock: TestClock, _ ms: Double) -> MonotonicInstant {
        clock.monotonicNow().advanced(byMilliseconds: ms)
    }

    @Test("classification from the launch facts", arguments: [
        (LaunchFacts(), LaunchKind.cold),
        (LaunchFacts(isNewProcess: false), .resume),
        (LaunchFacts(isPrewarmed: true, isNewProcess: false), .resume),
        (LaunchFacts(isPrewarmed: true), .prewarmed),
        (LaunchFacts(pagesCached: true), .warm),
        (LaunchFacts(pagesCached: false, secondsSinceLastLaunch: 5), .cold),
        (LaunchFacts(secondsSinceLastLaunch: 30), .warm),
        (LaunchFacts(secondsSinceLastLaunch: 600), .warm),
        (LaunchFacts(secondsSinceLastLaunch: 601), .cold),
        (LaunchFacts(secondsSinceLastLaunch: 30, rebootedSinceLastLaunch: true), .cold),
        (LaunchFacts(secondsSinceLastLaunch: -3), .cold),
        (LaunchFacts(secondsSinceLastLaunch: .nan), .cold),
    ])
    func classification(facts: LaunchFacts, kind: LaunchKind) {
        #expect(LaunchTimeline.classify(facts) == kind)
    }

    @Test("a cold launch measures every phase from the process start")
    func coldPhases() throws {
        let clock = TestClock()
        var launch = timeline(sinceProcessStart: 300, clock: clock)
        #expect(launch.outcome() == .pending)
        launch.mark(.main, at: after(clock, -200))          // 100 ms after the process started
        launch.mark(.sdkStart, at: after(clock, 0))
        launch.mark(.didFinishLaunching, at: after(clock, 400))
        #expect(launch.outcome() == .pending)
        launch.mark(.firstFrame, at: after(clock, 700))
        launch.mark(.fullyDrawn, at: after(clock, 1700))
        launch.recordPageFaults(PageFaultCounts(minor: 5000, major: 12), at: .firstFrame)
        guard case .completed(let result) = launch.outcome() else {
            Issue.record("expected a completed launch, got \(launch.outcome())")
            return
        }
        let payload = result.payload
        #expect(payload.kind == .cold)
        #expect(result.countsTowardColdStatistics)
        #expect(try #require(payload.preMainMs).isApproximately(100))
        #expect(try #require(payload.mainToDidFinishMs).isApproximately(600))
        #expect(try #require(payload.ttidMs).isApproximately(1000))
        #expect(try #require(payload.ttfdMs).isApproximately(2000))
        #expect(payload.pageFaults == 5012)
        #expect(payload.majorPageFaults == 12)
        #expect(payload.processStart == launch.processStart)
    }

    @Test("without a main mark, pre-main runs to SDK start")
    func preMainFallsBackToSDKStart() throws {
        let clock = TestClock()
        var launch = timeline(sinceProcessStart: 250, clock: clock)
        launch.mark(.sdkStart, at: after(clock, 0))
        launch.mark(.firstFrame, at: after(clock, 100))
        guard case .completed(let result) = launch.outcome() else { Issue.record("not completed"); return }
        #expect(try #require(result.payload.preMainMs).isApproximately(250))
        #expect(result.payload.mainToDidFinishMs == nil)
    }

    @Test("a prewarmed launch is measured from main and kept out of cold statistics")
    func prewarmed() throws {
        let clock = TestClock()
        // The OS started the process 40 minutes before the user opened the app.
        var launch = timeline(LaunchFacts(isPrewarmed: true), sinceProcessStart: 2_400_000, clock: clock)
        launch.mark(.main, at: after(clock, 0))
        launch.mark(.firstFrame, at: after(clock, 450))
        guard case .completed(let result) = launch.outcome() else {
            Issue.record("expected completed, got \(launch.outcome())")
            return
        }
        #expect(result.payload.kind == .prewarmed)
        #expect(!result.countsTowardColdStatistics)
        #expect(result.payload.preMainMs == nil)
        #expect(try #require(result.payload.ttidMs).isApproximately(450))
    }

    @Test("a resume is measured from the foreground entry, page faults from there too")
    func resume() throws {
        let clock = TestClock()
        var launch = timeline(LaunchFacts(isNewProcess: false), sinceProcessStart: 86_400_000, clock: clock)
        launch.mark(.firstFrame, at: after(clock, 100))
        #expect(launch.outcome() == .pending)            // no origin yet
        launch.mark(.foregroundEntry, at: after(clock, 0))
        launch.recordPageFaults(PageFaultCounts(minor: 100_000, major: 50), at: .foregroundEntry)
        launch.recordPageFaults(PageFaultCounts(minor: 100_300, major: 51), at: .firstFrame)
        guard case .completed(let result) = launch.outcome() else { Issue.record("not completed"); return }
        #expect(result.payload.kind == .resume)
        #expect(try #require(result.payload.ttidMs).isApproximately(100))
        #expect(result.payload.pageFaults == 301)
        #expect(!result.countsTowardColdStatistics)
    }

    @Test("launches whose first frame comes more than 180 s after the start are dropped")
    func tooLong() {
        let clock = TestClock()
        var launch = timeline(sinceProcessStart: 179_000, clock: clock)
        launch.mark(.firstFrame, at: after(clock, 999))
        if case .completed = launch.outcome() {} else { Issue.record("179.999 s should be kept") }
        var late = timeline(sinceProcessStart: 179_000, clock: clock)
        late.mark(.firstFrame, at: after(clock, 1500))
        guard case .dropped(.tooLong(let ttid)) = late.outcome() else {
            Issue.record("expected dropped, got \(late.outcome())")
            return
        }
        #expect(ttid.isApproximately(180_500))
    }

    @Test("repeated, out-of-order and before-start marks are skipped and counted")
    func badMarks() throws {
        let clock = TestClock()
        var launch = timeline(sinceProcessStart: 300, clock: clock)
        launch.mark(.firstFrame, at: after(clock, 500))
        launch.mark(.firstFrame, at: after(clock, 600))     // repeat: first wins
        launch.mark(.main, at: after(clock, 700))           // main after the first frame
        launch.mark(.fullyDrawn, at: after(clock, 400))     // fully drawn before the first frame
        launch.mark(.sdkStart, at: after(clock, -5000))     // before the process existed
        #expect(launch.counters.duplicateMarks == 1)
        #expect(launch.counters.outOfOrderMarks == 2)
        #expect(launch.counters.absurdInputs == 1)
        #expect(launch.instant(of: .firstFrame) == after(clock, 500))
        launch.recordPageFaults(PageFaultCounts(minor: 10, major: 0), at: .firstFrame)
        launch.recordPageFaults(PageFaultCounts(minor: 20, major: 0), at: .foregroundEntry)  // above the later count
        #expect(launch.counters.absurdInputs == 2)
        guard case .completed(let result) = launch.outcome() else { Issue.record("not completed"); return }
        #expect(try #require(result.payload.ttidMs).isApproximately(800))
    }

    @Test("a wall-clock jump after the timeline started does not distort the phases")
    func wallClockJump() throws {
        let clock = TestClock()
        var launch = timeline(sinceProcessStart: 200, clock: clock)
        clock.advance(byMilliseconds: 300)
        clock.setWall(clock.wallNow().addingTimeInterval(-3600))
        launch.mark(.firstFrame, at: clock.monotonicNow())
        guard case .completed(let result) = launch.outcome() else { Issue.record("not completed"); return }
        #expect(try #require(result.payload.ttidMs).isApproximately(500))
    }
}

extension Double {
    /// Equal within a microsecond-scale tolerance (instants are whole nanoseconds).
    func isApproximately(_ other: Double, tolerance: Double = 0.001) -> Bool { abs(self - other) <= tolerance }
}

@Suite("Launch timeline: orchestrator task spans")
struct LaunchTimelineTaskSpanTests {
    private func span(_ name: String, trace: String = "0af7651916cd43dd8448eb211c80319c") -> SpanPayload {
        let start = Date(timeIntervalSince1970: 1_795_985_000)
        return SpanPayload(traceId: trace, spanId: TraceIdentifier.spanId(), name: name, start: start,
                           end: start.addingTimeInterval(0.01))
    }

    private func completedLaunch(_ clock: TestClock) -> LaunchTimeline {
        var launch = LaunchTimeline(processStart: clock.wallNow().addingTimeInterval(-0.3), facts: LaunchFacts(), clock: clock)
        launch.mark(.main, at: clock.monotonicNow())
        launch.mark(.firstFrame, at: clock.monotonicNow().advanced(byMilliseconds: 400))
        return launch
    }

    private func payload(_ launch: LaunchTimeline) -> LaunchPayload? {
        guard case .completed(let result) = launch.outcome() else { return nil }
        return result.payload
    }

    @Test("attached task spans travel on the launch payload with their trace id; other spans are left out")
    func attachedSpansAreCarried() throws {
        let clock = TestClock()
        var launch = completedLaunch(clock)
        #expect(try #require(payload(launch)).tasks == nil)
        launch.attachTasks(traceId: "0af7651916cd43dd8448eb211c80319c",
                           spans: [span("launch"), span("launch.task.config"), span("ble.connect"), span("launch.task.db")])
        let carried = try #require(payload(launch))
        #expect(carried.traceId == "0af7651916cd43dd8448eb211c80319c")
        #expect(carried.tasks?.map(\.name) == ["launch.task.config", "launch.task.db"])
        #expect(launch.counters.droppedTaskSpans == 0)
    }

    @Test("a later attachment replaces an earlier one; after the report spans are dropped and counted")
    func laterAttachments() throws {
        let clock = TestClock()
        var launch = completedLaunch(clock)
        launch.attachTasks(traceId: "aaaa", spans: [span("launch.task.a", trace: "aaaa")])
        launch.attachTasks(traceId: "aaaa", spans: [span("launch.task.a", trace: "aaaa"), span("launch.task.b", trace: "aaaa")])
        #expect(try #require(payload(launch)).tasks?.map(\.name) == ["launch.task.a", "launch.task.b"])
        launch.attachTasks(traceId: "bbbb", spans: [span("launch.task.c", trace: "bbbb"), span("launch", trace: "bbbb")],
                           launchReported: true)
        #expect(try #require(payload(launch)).traceId == "aaaa")
        #expect(launch.counters.droppedTaskSpans == 1)
        // Spans that are not launch tasks leave the payload without tasks or a trace id.
        var other = completedLaunch(clock)
        other.attachTasks(traceId: "cccc", spans: [span("ble.connect", trace: "cccc")])
        #expect(try #require(payload(other)).tasks == nil && payload(other)?.traceId == nil)
    }
}
