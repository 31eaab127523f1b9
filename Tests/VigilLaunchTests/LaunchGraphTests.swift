import Testing
import VigilLaunch

@Suite("Launch graph validation")
struct LaunchGraphTests {
    private func problems(_ build: () throws -> LaunchGraph) -> [LaunchGraphProblem] {
        do {
            _ = try build()
            return []
        } catch let error as LaunchGraphError {
            return error.problems
        } catch {
            Issue.record("unexpected error \(error)")
            return []
        }
    }

    @Test("a dependency cycle is rejected with the tasks of the cycle in execution order")
    func cycleNamesItsTasks() {
        let found = problems {
            try LaunchGraph {
                LaunchTask("root") {}
                LaunchTask("a", dependencies: ["root", "c"]) {}
                LaunchTask("b", dependencies: ["a"]) {}
                LaunchTask("c", dependencies: ["b"]) {}
            }
        }
        #expect(found.count == 1)
        guard case .cycle(let tasks, let laneSteps)? = found.first else {
            Issue.record("expected a cycle, got \(found)")
            return
        }
        #expect(tasks.first == tasks.last)
        #expect(Set(tasks) == ["a", "b", "c"])
        #expect(tasks.count == 4)
        #expect(laneSteps.isEmpty)
        // Each task waits for the one before it.
        let dependsOn = ["a": "c", "b": "a", "c": "b"]
        for index in 1..<tasks.count { #expect(dependsOn[tasks[index]] == tasks[index - 1]) }
        #expect(LaunchGraphError(found).description.contains("\"a\""))
    }

    @Test("a task that depends on itself is a cycle of one")
    func selfDependency() {
        let found = problems { try LaunchGraph { LaunchTask("solo", dependencies: ["solo"]) {} } }
        #expect(found == [.cycle(tasks: ["solo", "solo"], laneOrderSteps: [])])
    }

    @Test("a cycle through a serial lane's registration order is rejected and the lane step named")
    func cycleThroughLaneOrder() {
        // "second" must run after "first" on the lane, but "first" depends on "second".
        let found = problems {
            try LaunchGraph {
                LaunchTask("first", lane: .serial("db"), dependencies: ["second"]) {}
                LaunchTask("second", lane: .serial("db")) {}
            }
        }
        guard case .cycle(let tasks, let laneSteps)? = found.first else {
            Issue.record("expected a cycle, got \(found)")
            return
        }
        #expect(Set(tasks) == ["first", "second"])
        #expect(laneSteps == ["\"second\" runs after \"first\" on serial lane \"db\""])
    }

    @Test("every missing dependency is named with the task that wants it")
    func missingDependencies() {
        let found = problems {
            try LaunchGraph {
                LaunchTask("a", dependencies: ["ghost"]) {}
                LaunchTask("b", dependencies: ["a", "phantom", "ghost"]) {}
            }
        }
        #expect(found == [.missingDependency(task: "a", dependency: "ghost"),
                          .missingDependency(task: "b", dependency: "phantom"),
                          .missingDependency(task: "b", dependency: "ghost")])
        #expect(LaunchGraphError(found).description.contains("task \"b\" depends on \"phantom\""))
    }

    @Test("duplicate ids are rejected once per id")
    func duplicateIds() {
        let found = problems {
            try LaunchGraph {
                LaunchTask("twice") {}
                LaunchTask("twice") {}
                LaunchTask("twice") {}
                LaunchTask("once") {}
            }
        }
        #expect(found == [.duplicateId("twice")])
    }

    @Test("a task may not depend on a task of a later phase")
    func laterPhaseDependency() {
        let found = problems {
            try LaunchGraph {
                LaunchTask("late", phase: .afterFirstFrame) {}
                LaunchTask("early", dependencies: ["late"]) {}
            }
        }
        #expect(found == [.laterPhaseDependency(task: "early", phase: .beforeFirstFrame, dependency: "late",
                                                dependencyPhase: .afterFirstFrame)])
    }

    @Test("invalid ids, empty lane names, async main-lane work and bad durations are all reported together")
    func otherProblems() {
        let found = problems {
            try LaunchGraph {
                LaunchTask("") {}
                LaunchTask("has space") {}
                LaunchTask("a,b") {}
                LaunchTask(String(repeating: "x", count: 129)) {}
                LaunchTask("lane", lane: .serial("")) {}
                LaunchTask.suspending("async-main", lane: .main) {}
                LaunchTask("zero-timeout", timeout: .milliseconds(0)) {}
                LaunchTask("negative-estimate", estimatedMs: -1) {}
            }
        }
        #expect(found.count == 8)
        #expect(found.contains(.invalidId(index: 0, id: "", reason: "it is empty")))
        #expect(found.contains(.invalidId(index: 1, id: "has space", reason: "it contains whitespace")))
        #expect(found.contains(.invalidId(index: 2, id: "a,b", reason: "it contains a comma")))
        #expect(found.contains(.emptyLaneName(task: "lane")))
        #expect(found.contains(.suspendingOnMainLane(task: "async-main")))
        #expect(found.contains(.invalidDuration(task: "zero-timeout", field: "timeout", value: 0)))
        #expect(found.contains(.invalidDuration(task: "negative-estimate", field: "estimatedMs", value: -1)))
    }

    @Test("the builder takes if, if-else, for and arrays")
    func builderControlFlow() throws {
        let analytics = true
        let debug = false
        let graph = try LaunchGraph {
            LaunchTask("config") {}
            if analytics { LaunchTask("analytics", dependencies: ["config"]) {} }
            if debug { LaunchTask("debug-menu") {} } else { LaunchTask("release-only") {} }
            for index in 0..<3 { LaunchTask("plugin-\(index)", lane: .serial("plugins")) {} }
            [LaunchTask("x") {}, LaunchTask("y") {}]
        }
        #expect(graph.tasks.map(\.id) == ["config", "analytics", "release-only", "plugin-0", "plugin-1", "plugin-2", "x", "y"])
        #expect(graph.plan.serialLaneOrder == [[3, 4, 5]])
    }

    @Test("a serial lane runs earlier phases first, then registration order")
    func laneOrderByPhase() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "late", lane: .serial("s"), phase: .afterFirstFrame),
            LaunchTaskSpec(id: "early-1", lane: .serial("s")),
            LaunchTaskSpec(id: "idle", lane: .serial("s"), phase: .idle),
            LaunchTaskSpec(id: "early-2", lane: .serial("s")),
        ])
        #expect(plan.serialLaneOrder[0].map { plan.specs[$0].id } == ["early-1", "early-2", "late", "idle"])
    }

    @Test("bottom levels add the estimates of the longest chain a task starts")
    func bottomLevels() throws {
        let plan = try LaunchPlan([
            LaunchTaskSpec(id: "a", estimatedMs: 10),
            LaunchTaskSpec(id: "b", dependencies: ["a"], estimatedMs: 5),
            LaunchTaskSpec(id: "c", dependencies: ["a"], estimatedMs: 20),
            LaunchTaskSpec(id: "d", dependencies: ["b"]),
        ])
        #expect(plan.bottomLevel == [30, 6, 20, 1])
    }
}
