import Foundation
import Testing
import VigilCore
import VigilLaunch

extension RealThreads {
    /// The ordering checks of `RandomGraphOrderingTests`, on real threads for a smaller sample:
    /// what the runner's threads, locks and queues do must match the state machine.
    @Suite("Random graphs on real threads")
    struct RandomGraphRealRunTests {
        init() { MainQueueProbe.install() }

        @Test("seeded random graphs run on real threads keep every ordering constraint", arguments: Array(UInt64(1)...24))
        func randomGraph(seed: UInt64) async throws {
            let random = RandomLaunchGraph(seed: seed &* 7919, maxTasks: 14, allowTimeouts: false)
            let probe = ConcurrencyProbe()
            let facts = Facts()
            let tasks = random.specs.enumerated().map { index, spec -> LaunchTask in
                let id = spec.id
                let fails = random.failing.contains(index)
                // A twentieth of the simulated duration: under a millisecond of real work each.
                let work = random.durationsMs[index] / 20
                let main = spec.lane == .main
                if spec.suspends {
                    return LaunchTask.suspending(id, lane: spec.lane, phase: spec.phase, priority: spec.priority,
                                                 dependencies: spec.dependencies, estimatedMs: spec.estimatedMs) {
                        try await Task.sleep(nanoseconds: UInt64(work * 1_000_000))
                        if fails { throw PlannedError(description: "simulated failure") }
                    }
                }
                return LaunchTask(id, lane: spec.lane, phase: spec.phase, priority: spec.priority,
                                  dependencies: spec.dependencies, estimatedMs: spec.estimatedMs) {
                    probe.enter(id)
                    if main { facts.set(id, MainQueueProbe.isOnMainQueue) }
                    LaunchRehearsal.burnCPU(milliseconds: work)
                    probe.leave()
                    if fails { throw PlannedError(description: "simulated failure") }
                }
            }
            let graph = try LaunchGraph(tasks)
            let runner = LaunchRunner(graph: graph, options: .init(maxConcurrency: random.cores))
            // Half the runs pump the main lane from the main queue, half from another thread.
            let result = seed % 2 == 0
                ? await onMainQueue { runner.run(until: .allPhases, deadline: .seconds(60)) }
                : await onThread { runner.run(until: .allPhases, deadline: .seconds(60)) }
            let final = await onThread { runner.waitForCompletion(timeout: .seconds(60)) }
            #expect(result.reachedMilestone, "seed \(seed): \(result.unfinished)")
            let plan = graph.plan
            let records = final.tasks

            // Without timeouts, which tasks succeed, fail or are skipped does not depend on timing,
            // so it must equal the simulation's. (Which failed dependency a skip names may: the
            // first to fail wins.)
            let simulation = LaunchSimulator.simulate(plan, durationsMs: random.durationsMs, cores: runner.cores,
                                                      failing: random.failing)
            #expect(records.map(\.state.label) == simulation.entries.map(\.state.label), "seed \(seed)")
            for record in records {
                if case .skipped(let dependency, _) = record.state {
                    #expect(final.task(dependency)?.state != .succeeded, "seed \(seed): \(record.id)")
                }
            }

            for (index, record) in records.enumerated() {
                guard let start = record.startMs else { continue }
                for dependency in plan.dependencies[index] {
                    let end = try #require(records[dependency].endMs)
                    #expect(end <= start, "seed \(seed): \(record.id) started before \(records[dependency].id) ended")
                }
                if plan.specs[index].lane == .main {
                    #expect(record.worker == "main")
                    #expect(facts.get(record.id) == true, "seed \(seed): \(record.id) ran off the main queue")
                }
            }
            for order in plan.serialLaneOrder {
                let ran = order.filter { records[$0].startMs != nil }
                for (earlier, later) in zip(ran, ran.dropFirst()) {
                    #expect((records[earlier].endMs ?? .infinity) <= (records[later].startMs ?? 0),
                            "seed \(seed): serial lane overlap")
                }
            }
            #expect(probe.maximum <= runner.cores, "seed \(seed)")
        }
    }
}
