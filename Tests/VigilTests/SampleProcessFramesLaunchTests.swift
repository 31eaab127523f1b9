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

    @Test("the scripted launch is one cold launch with ordered phases")
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
        #expect(didFinish >= 115, "120 ms of scripted setup work")
        #expect(ttfd - ttid >= 200, "ten frames of 25 ms content loading")
        #expect(ttid >= (launch.preMainMs ?? 0) + didFinish - 20)
        #expect((launch.pageFaults ?? 0) > 0)
        #expect(abs(launch.processStart.timeIntervalSinceNow) < 120)
    }
}
