import Foundation
import Testing
import VigilCore
import VigilDemoApp
import VigilLaunch

/// The spans of a simulated launch (what the demo's history sends) have the runner's shape:
/// read back like measured spans, they give the simulated schedule and its critical path.
@Suite("Spans of a simulated launch")
struct LaunchSimulationSpansTests {
    private let start = Date(timeIntervalSince1970: 1_795_985_000)

    @Test("read back from its spans, a simulated launch has its simulated tasks, times, threads and critical path",
          arguments: [false, true])
    func spansReadBack(regressed: Bool) throws {
        let file = DemoLaunchGraph.file(regressed: regressed)
        let plan = try file.plan()
        let simulation = LaunchSimulator.simulate(plan, durationsMs: file.durationsMs, cores: file.cores ?? 2)
        var random = SeededGenerator(seed: 7)
        let spans = simulation.taskSpans(plan: plan, traceId: "0af7651916cd43dd8448eb211c80319c", rootSpanId: "b7ad6b7169203331",
                                         start: start, using: &random)
        #expect(spans.count == plan.count, "every task of the graph settles in the simulation")
        #expect(Set(spans.map(\.parentSpanId)) == ["b7ad6b7169203331"])
        let traces = LaunchTrace.traces(from: spans)
        try #require(traces.count == 1)
        let trace = traces[0]
        #expect(trace.cores == file.cores)
        for entry in simulation.entries {
            let task = try #require(trace.tasks.first { $0.id == entry.id })
            #expect(abs(task.startMs - (entry.startMs ?? -1)) < 1e-6, "\(entry.id)")
            #expect(abs(task.endMs - (entry.endMs ?? -1)) < 1e-6, "\(entry.id)")
            #expect(task.outcome == "succeeded")
            let worker = try #require(task.worker)
            #expect(worker == "main" || worker == "async" || worker.hasPrefix("pool-"), "\(entry.id): \(worker)")
            #expect((worker == "main") == (entry.lane == .main), "\(entry.id)")
        }
        // The span times themselves agree with the offsets they carry.
        let config = try #require(spans.first { $0.name == "launch.task.config" })
        let entry = try #require(simulation.entries.first { $0.id == "config" })
        #expect(abs(config.start.timeIntervalSince(start) * 1000 - (entry.startMs ?? -1)) < 0.01)
        let (readPlan, durations) = try trace.plan()
        let readBack = LaunchAnalysis(plan: readPlan, durationsMs: durations, cores: file.cores ?? 2,
                                      including: readPlan.specs.map { $0.phase == .beforeFirstFrame })
        #expect(readBack.criticalPath == simulation.analysis.criticalPath)
        #expect(abs(readBack.criticalPathMs - simulation.analysis.criticalPathMs) < 1e-6)
        // Seeded: the same generator state gives the same spans, ids included.
        var again = SeededGenerator(seed: 7)
        #expect(simulation.taskSpans(plan: plan, traceId: "0af7651916cd43dd8448eb211c80319c", rootSpanId: "b7ad6b7169203331",
                                     start: start, using: &again) == spans)
    }

    @Test("the demo app's graph: its regressed release waits for the catalog preload before the first frame")
    func demoGraphRegression() throws {
        let good = DemoLaunchGraph.file()
        let bad = DemoLaunchGraph.file(regressed: true)
        #expect(good.tasks.count == 14 && bad.tasks.count == 14)
        let goodRun = LaunchSimulator.simulate(try good.plan(), durationsMs: good.durationsMs, cores: 2)
        let badRun = LaunchSimulator.simulate(try bad.plan(), durationsMs: bad.durationsMs, cores: 2)
        #expect(!goodRun.analysis.criticalPath.contains("catalog-preload"))
        #expect(badRun.analysis.criticalPath.contains("catalog-preload"))
        #expect(goodRun.analysis.criticalPath.last == "root-view" && badRun.analysis.criticalPath.last == "root-view")
        #expect(badRun.firstFrameMs > goodRun.firstFrameMs * 1.3, "\(badRun.firstFrameMs) vs \(goodRun.firstFrameMs)")
        // Every lane and phase is used, and main-lane work is never async.
        let lanes = Set(good.tasks.map { $0.spec.lane.description.split(separator: ":").first.map(String.init) ?? "" })
        #expect(lanes == ["main", "concurrent", "serial"])
        #expect(Set(good.tasks.map(\.spec.phase)) == Set(LaunchPhase.allCases))
    }
}
