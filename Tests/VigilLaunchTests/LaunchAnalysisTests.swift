import Testing
import VigilLaunch

@Suite("Critical path and lower bound")
struct LaunchAnalysisTests {
    // a(10) → b(30) → d(5); a → c(8) → d; e(40) alone; m1, m2 on the main lane.
    private func diamond() throws -> LaunchPlan {
        try LaunchPlan([
            LaunchTaskSpec(id: "a"),
            LaunchTaskSpec(id: "b", dependencies: ["a"]),
            LaunchTaskSpec(id: "c", dependencies: ["a"]),
            LaunchTaskSpec(id: "d", dependencies: ["b", "c"]),
            LaunchTaskSpec(id: "e"),
            LaunchTaskSpec(id: "m1", lane: .main),
            LaunchTaskSpec(id: "m2", lane: .main),
        ])
    }

    @Test("the critical path follows the longest chain and the bound is the largest term")
    func criticalPath() throws {
        let plan = try diamond()
        let analysis = LaunchAnalysis(plan: plan, durationsMs: [10, 30, 8, 5, 40, 3, 4], cores: 2)
        #expect(analysis.criticalPath == ["a", "b", "d"])
        #expect(analysis.criticalPathMs == 45)
        #expect(analysis.coreWorkMs == 100)
        #expect(analysis.mainLaneMs == 7)
        #expect(analysis.serialMs == 100)
        #expect(analysis.lowerBoundMs == 50)
        #expect(analysis.boundedBy == "coreWork")
        let wide = LaunchAnalysis(plan: plan, durationsMs: [10, 30, 8, 5, 40, 3, 4], cores: 8)
        #expect(wide.lowerBoundMs == 45)
        #expect(wide.boundedBy == "criticalPath")
    }

    @Test("async tasks count on the critical path but hold no core")
    func asyncWorkHoldsNoCore() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "fetch", suspends: true),
            LaunchTaskSpec(id: "parse", dependencies: ["fetch"]),
            LaunchTaskSpec(id: "other"),
        ])
        let analysis = LaunchAnalysis(plan: plan, durationsMs: [100, 10, 20], cores: 1)
        #expect(analysis.criticalPath == ["fetch", "parse"])
        #expect(analysis.coreWorkMs == 30)
        #expect(analysis.lowerBoundMs == 110)
    }

    @Test("a serial lane's order is part of the critical path")
    func laneOrderOnCriticalPath() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "open", lane: .serial("db")),
            LaunchTaskSpec(id: "migrate", lane: .serial("db")),
            LaunchTaskSpec(id: "side"),
        ])
        let analysis = LaunchAnalysis(plan: plan, durationsMs: [20, 25, 30], cores: 4)
        #expect(analysis.criticalPath == ["open", "migrate"])
        #expect(analysis.criticalPathMs == 45)
    }

    @Test("excluded tasks do not count")
    func exclusion() throws {
        let plan = try diamond()
        let analysis = LaunchAnalysis(plan: plan, durationsMs: [10, 30, 8, 5, 40, 3, 4], cores: 2,
                                      including: [true, false, true, true, false, false, false])
        #expect(analysis.criticalPath == ["a", "c", "d"])
        #expect(analysis.criticalPathMs == 23)
        #expect(analysis.serialMs == 23)
    }

    @Test("removal savings rank the critical-path tasks by how much sooner the first frame comes")
    func savings() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "config"),
            LaunchTaskSpec(id: "db", dependencies: ["config"]),
            LaunchTaskSpec(id: "feed", dependencies: ["db"]),
            LaunchTaskSpec(id: "fonts"),
            LaunchTaskSpec(id: "window", dependencies: ["fonts"], lane: .main),
        ])
        let durations = [5.0, 40, 20, 30, 10]
        let savings = LaunchSimulator.removalSavings(plan, durationsMs: durations, cores: 2)
        #expect(savings.map(\.id) == ["db", "feed", "config"])
        // Without db: config(5) → feed(20) = 25, but fonts(30) → window(10) = 40 now bounds it.
        #expect(savings[0].criticalPathSavingMs == 25)
        #expect(savings[0].makespanSavingMs == 25)
        #expect(savings[1].makespanSavingMs == 20)
        #expect(savings[2].makespanSavingMs == 5)
    }
}
