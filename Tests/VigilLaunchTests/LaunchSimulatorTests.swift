import Testing
import VigilLaunch

@Suite("Virtual-time scheduling")
struct LaunchSimulatorTests {
    private func entry(_ simulation: LaunchSimulation, _ id: String) -> LaunchSimulation.Entry {
        simulation.entries.first { $0.id == id }!
    }

    @Test("one core runs everything one after another: makespan equals the serial time")
    func oneCoreIsSerial() throws {
        let plan = try LaunchPlan((0..<6).map { LaunchTaskSpec(id: "t\($0)") })
        let simulation = LaunchSimulator.simulate(plan, durationsMs: [3, 1, 4, 1, 5, 9], cores: 1)
        #expect(simulation.makespanMs == 23)
        #expect(simulation.analysis.serialMs == 23)
        #expect(simulation.analysis.lowerBoundMs == 23)
    }

    @Test("independent tasks spread over the cores, longest chains first")
    func longestChainFirst() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "short", estimatedMs: 1),
            LaunchTaskSpec(id: "long", estimatedMs: 10),
            LaunchTaskSpec(id: "after-long", dependencies: ["long"], estimatedMs: 10),
        ])
        let simulation = LaunchSimulator.simulate(plan, durationsMs: [1, 10, 10], cores: 1)
        #expect(entry(simulation, "long").startMs == 0)
        #expect(entry(simulation, "after-long").startMs == 10)
        #expect(entry(simulation, "short").startMs == 20)
    }

    @Test("priority beats chain length")
    func priorityFirst() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "long", estimatedMs: 50),
            LaunchTaskSpec(id: "urgent", priority: 5, estimatedMs: 1),
        ])
        let simulation = LaunchSimulator.simulate(plan, durationsMs: [50, 1], cores: 1)
        #expect(entry(simulation, "urgent").startMs == 0)
        #expect(entry(simulation, "long").startMs == 1)
    }

    @Test("a main-lane task holds one of the cores")
    func mainLaneHoldsACore() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "ui", lane: .main, estimatedMs: 10),
            LaunchTaskSpec(id: "bg1", estimatedMs: 5),
            LaunchTaskSpec(id: "bg2", estimatedMs: 5),
        ])
        let simulation = LaunchSimulator.simulate(plan, durationsMs: [10, 5, 5], cores: 2)
        #expect(entry(simulation, "ui").worker == "main")
        #expect(entry(simulation, "ui").startMs == 0)
        #expect(entry(simulation, "bg1").startMs == 0)
        #expect(entry(simulation, "bg2").startMs == 5)
        #expect(simulation.makespanMs == 10)
    }

    @Test("async tasks run beside a full pool")
    func asyncBesidePool() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "cpu"),
            LaunchTaskSpec(id: "fetch", suspends: true),
        ])
        let simulation = LaunchSimulator.simulate(plan, durationsMs: [20, 30], cores: 1)
        #expect(entry(simulation, "fetch").worker == "async")
        #expect(entry(simulation, "fetch").startMs == 0)
        #expect(entry(simulation, "cpu").startMs == 0)
        #expect(simulation.makespanMs == 30)
    }

    @Test("a serial lane keeps registration order even when a later task is ready first")
    func serialLaneOrder() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "slow-dep"),
            LaunchTaskSpec(id: "lane-1", dependencies: ["slow-dep"], lane: .serial("db")),
            LaunchTaskSpec(id: "lane-2", lane: .serial("db")),
        ])
        let simulation = LaunchSimulator.simulate(plan, durationsMs: [10, 2, 2], cores: 4)
        #expect(entry(simulation, "lane-1").startMs == 10)
        #expect(entry(simulation, "lane-2").readyMs == 0)
        #expect(entry(simulation, "lane-2").startMs == 12)
    }

    @Test("a failure skips every dependent with the root cause, not its independents")
    func failureSkipsDependents() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "boom"),
            LaunchTaskSpec(id: "child", dependencies: ["boom"]),
            LaunchTaskSpec(id: "grandchild", dependencies: ["child"]),
            LaunchTaskSpec(id: "bystander"),
        ])
        let simulation = LaunchSimulator.simulate(plan, durationsMs: [1, 1, 1, 5], cores: 2, failing: [0])
        #expect(entry(simulation, "boom").state == .failed("simulated failure"))
        #expect(entry(simulation, "child").state
                == .skipped(dependency: "boom", reason: "dependency \"boom\" failed: simulated failure"))
        #expect(entry(simulation, "grandchild").state == .skipped(
            dependency: "child",
            reason: "dependency \"child\" was skipped because dependency \"boom\" failed: simulated failure"))
        #expect(entry(simulation, "bystander").state == .succeeded)
        #expect(entry(simulation, "child").startMs == nil)
    }

    @Test("a timeout settles the task at its limit, skips dependents, and keeps its core until it returns")
    func timeout() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "hang", timeoutMs: 10),
            LaunchTaskSpec(id: "after", dependencies: ["hang"]),
            LaunchTaskSpec(id: "queued"),
        ])
        let simulation = LaunchSimulator.simulate(plan, durationsMs: [50, 1, 3], cores: 1)
        #expect(entry(simulation, "hang").state == .timedOut(limitMs: 10, stillRunning: false))
        #expect(entry(simulation, "hang").endMs == 50)
        if case .skipped(let dependency, let reason) = entry(simulation, "after").state {
            #expect(dependency == "hang")
            #expect(reason.contains("timed out after 10 ms"))
        } else {
            Issue.record("after should be skipped")
        }
        // The one core stays held by the timed-out task.
        #expect(entry(simulation, "queued").startMs == 50)
        #expect(simulation.firstFrameMs == 53)
    }

    @Test("after-first-frame tasks start at the first frame, idle tasks once the main lane is idle")
    func phases() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "boot"),
            LaunchTaskSpec(id: "ui-late", lane: .main, phase: .afterFirstFrame),
            LaunchTaskSpec(id: "prefetch", phase: .afterFirstFrame),
            LaunchTaskSpec(id: "trim", phase: .idle),
        ])
        let simulation = LaunchSimulator.simulate(plan, durationsMs: [10, 5, 20, 1], cores: 2)
        #expect(simulation.firstFrameMs == 10)
        #expect(entry(simulation, "ui-late").startMs == 10)
        #expect(entry(simulation, "prefetch").startMs == 10)
        #expect(entry(simulation, "trim").startMs == 15)
        #expect(simulation.completionMs == 30)
    }
}
