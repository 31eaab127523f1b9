import Foundation
import Testing
import VigilCore
import VigilTestSupport

@Suite("vigil-sample frames and launch (real process)")
struct SampleProcessFramesLaunchTests {
    @Test("the 60 Hz render loop reports its drops and exactly one frozen frame whose stack names the freezing function")
    func framesScenario() throws {
        let run = try SampleRun.run(["frames"])
        #expect(run.outcome.exitStatus == 0, "\(run.outcome)")
        let windows = run.events.compactMap { event -> (Event, FramesPayload)? in
            if case .frames(let frames) = event.payload { return (event, frames) } else { return nil }
        }
        let (event, first) = try #require(windows.first { $0.1.page == "FramesDemo" })
        #expect(first.refreshRate == 60)
        #expect(first.frozen == 1)
        #expect(first.slow >= 3 && first.severe >= 2, "scripted: 60 ms (slow), 140 ms (severe), 900 ms (frozen)")
        let frozen = try #require(first.frozenFrames?.first)
        #expect(frozen.durationMs >= 880 && frozen.durationMs <= 1500, "freeze \(frozen.durationMs) ms")
        let stack = try #require(frozen.stack)
        let frames = try LLVMSymbolizer.symbolicate(stack: stack, images: event.images ?? [])
        #expect(frames.contains { $0.function?.contains("freezeRenderLoopForDemo") == true },
                "freeze stack: \(frames.map { $0.function ?? $0.address.hex })")
        let detail = try #require(windows.first { $0.1.page == "FramesDemoDetail" }?.1)
        #expect(detail.refreshRate == 120)
        #expect(detail.frozen == 0)
    }

    @Test("the scripted launch is one cold launch with ordered phases, its launch tasks' spans on it and as span events")
    func launchScenario() throws {
        let run = try SampleRun.run(["launch"])
        #expect(run.outcome.exitStatus == 0, "\(run.outcome)")
        let launches = run.events.compactMap { event -> LaunchPayload? in
            if case .launch(let launch) = event.payload { return launch } else { return nil }
        }
        try #require(launches.count == 1)
        let launch = launches[0]
        #expect(launch.kind == .cold)
        let ttid = try #require(launch.ttidMs)
        let ttfd = try #require(launch.ttfdMs)
        let didFinish = try #require(launch.mainToDidFinishMs)
        #expect(ttfd - ttid >= 200, "ten frames of 25 ms content loading")
        #expect(ttid >= (launch.preMainMs ?? 0) + didFinish - 20)
        #expect((launch.pageFaults ?? 0) > 0)
        #expect(abs(launch.processStart.timeIntervalSinceNow) < 120)

        // didFinishLaunching ran the demo app's launch tasks with the launch runner: their spans
        // (attached again at fully drawn) are on the launch, under its trace id, each succeeded.
        let tasks = try #require(launch.tasks)
        let traceId = try #require(launch.traceId)
        func attribute(_ span: SpanPayload, _ key: String) -> String? {
            if case .string(let value)? = span.attributes[key] { return value } else { return nil }
        }
        func number(_ span: SpanPayload, _ key: String) -> Double? {
            if case .double(let value)? = span.attributes[key] { return value } else { return nil }
        }
        let beforeFirstFrame = ["crash-reporter", "config", "keychain", "db-open", "db-migrate", "feature-flags",
                                "session-restore", "theme", "root-view"]
        let ids = Set(tasks.compactMap { attribute($0, "launch.task.id") })
        // Those after the first frame are there when they were done by fully drawn (a loaded
        // machine can delay them past it).
        #expect(ids.isSuperset(of: beforeFirstFrame), "\(ids)")
        #expect(tasks.allSatisfy { $0.traceId == traceId && attribute($0, "launch.task.outcome") == "succeeded" })
        // The main-lane tasks ran on the main thread, the others on the pool or as Swift tasks.
        for span in tasks {
            let worker = attribute(span, "launch.task.worker") ?? ""
            #expect((worker == "main") == (attribute(span, "launch.task.lane") == "main"), "\(span.name) on \(worker)")
        }
        // Dependencies held: each task started after its dependencies returned.
        let ends = Dictionary(tasks.compactMap { span in
            number(span, "launch.task.start_offset_ms").flatMap { start in
                number(span, "launch.task.run_ms").map { (attribute(span, "launch.task.id") ?? "", start + $0) } }
        }, uniquingKeysWith: max)
        for span in tasks {
            let start = try #require(number(span, "launch.task.start_offset_ms"))
            for dependency in (attribute(span, "launch.task.dependencies") ?? "").split(separator: ",") {
                #expect(start >= (ends[String(dependency)] ?? .infinity) - 0.001, "\(span.name) after \(dependency)")
            }
        }
        // The before-first-frame tasks are part of main → didFinishLaunching.
        let lastBeforeFirstFrame = beforeFirstFrame.compactMap { ends[$0] }.max() ?? .infinity
        #expect(didFinish >= lastBeforeFirstFrame - 1, "didFinishLaunching \(didFinish) ms, tasks until \(lastBeforeFirstFrame) ms")
        let spanEvents = run.events.compactMap { event -> SpanPayload? in
            if case .span(let span) = event.payload { return span } else { return nil }
        }
        // Each task's span is also a span event of the same trace: all fourteen, since the sample
        // waits for the tasks of every phase before it stops.
        let spanIDs = Set(spanEvents.filter { $0.traceId == traceId }.compactMap { attribute($0, "launch.task.id") })
        #expect(spanIDs.isSuperset(of: ids) && spanIDs.count == 14, "\(spanIDs)")
    }
}
