import Testing
import VigilCore
import VigilLaunch

/// The scheduling rules, checked on 1,000 random graphs in virtual time (the simulator drives
/// the same state machine as the runner); `LaunchRunnerTests` repeats the ordering checks on
/// real threads for a smaller sample.
@Suite("Ordering constraints over random graphs")
struct RandomGraphOrderingTests {
    @Test("1,000 seeded random graphs: dependencies, lanes, cores, phases, skips and bounds hold")
    func thousandRandomGraphs() throws {
        var checkedBounds = 0
        for seed in UInt64(1)...1000 {
            // Every third graph without failures or timeouts, so that the bounds can be checked.
            let random = RandomLaunchGraph(seed: seed, maxTasks: 30, allowTimeouts: seed % 3 != 0,
                                           allowFailures: seed % 3 != 0)
            let plan = try LaunchPlan(random.specs)
            let simulation = LaunchSimulator.simulate(plan, durationsMs: random.durationsMs, cores: random.cores,
                                                      failing: random.failing)
            try check(simulation, plan: plan, random: random, seed: seed)
            if random.failing.isEmpty, random.specs.allSatisfy({ $0.timeoutMs == nil }) {
                checkedBounds += 1
                let analysis = simulation.analysis
                #expect(simulation.makespanMs >= analysis.lowerBoundMs - 1e-9, "seed \(seed): below the lower bound")
                #expect(simulation.makespanMs <= analysis.serialMs + 1e-9, "seed \(seed): slower than serial")
            }
        }
        #expect(checkedBounds > 300)
    }

    private func check(_ simulation: LaunchSimulation, plan: LaunchPlan, random: RandomLaunchGraph, seed: UInt64) throws {
        let entries = simulation.entries
        for (index, entry) in entries.enumerated() {
            let spec = plan.specs[index]
            #expect(entry.state.isSettled, "seed \(seed): \(entry.id) never settled: \(entry.state)")
            let dependencies = plan.dependencies[index]
            let allSucceeded = dependencies.allSatisfy { entries[$0].state == .succeeded }
            if let start = entry.startMs {
                #expect(allSucceeded, "seed \(seed): \(entry.id) ran although a dependency did not succeed")
                for dependency in dependencies {
                    #expect((entries[dependency].endMs ?? .infinity) <= start,
                            "seed \(seed): \(entry.id) started before \(entries[dependency].id) ended")
                }
                if spec.phase != .beforeFirstFrame {
                    #expect(start >= simulation.firstFrameMs, "seed \(seed): \(entry.id) started before the first frame")
                }
                let worker = entry.worker ?? ""
                if spec.lane == .main {
                    #expect(worker == "main")
                } else if spec.suspends {
                    #expect(worker == "async")
                } else {
                    #expect(worker.hasPrefix("core"))
                }
            } else {
                guard case .skipped(let dependency, _) = entry.state else {
                    Issue.record("seed \(seed): \(entry.id) never started but is \(entry.state)")
                    continue
                }
                #expect(!allSucceeded, "seed \(seed): \(entry.id) skipped with every dependency succeeded")
                let cause = entries.first { $0.id == dependency }
                #expect(cause.map { $0.state != .succeeded } ?? false)
            }
            if spec.phase == .beforeFirstFrame, case .timedOut = entry.state {
                // settles at its timeout, before the first frame
            } else if spec.phase == .beforeFirstFrame, let end = entry.endMs {
                #expect(end <= simulation.firstFrameMs + 1e-9, "seed \(seed): \(entry.id) ended after the first frame")
            }
        }
        // Serial lanes: never overlap, and run in (phase, registration) order.
        for order in plan.serialLaneOrder {
            let ran = order.filter { entries[$0].startMs != nil }
            for (earlier, later) in zip(ran, ran.dropFirst()) {
                #expect((entries[earlier].endMs ?? .infinity) <= (entries[later].startMs ?? 0),
                        "seed \(seed): lane overlap between \(entries[earlier].id) and \(entries[later].id)")
            }
        }
        // The main lane never overlaps.
        let mainRuns = entries.indices.filter { plan.specs[$0].lane == .main && entries[$0].startMs != nil }
            .sorted { (entries[$0].startMs!, entries[$0].endMs!) < (entries[$1].startMs!, entries[$1].endMs!) }
        for (earlier, later) in zip(mainRuns, mainRuns.dropFirst()) {
            #expect(entries[earlier].endMs! <= entries[later].startMs!, "seed \(seed): main lane overlap")
        }
        // At no instant do more synchronous tasks run than there are cores.
        let synchronous = entries.indices.filter { !plan.specs[$0].suspends && entries[$0].startMs != nil }
        for task in synchronous {
            let instant = entries[task].startMs!
            let running = synchronous.filter {
                entries[$0].startMs! <= instant && instant < entries[$0].endMs! && entries[$0].endMs! > entries[$0].startMs!
            }
            #expect(running.count <= random.cores, "seed \(seed): \(running.count) tasks on \(random.cores) cores")
        }
    }
}
