import Foundation
import Testing
import VigilCore
import VigilLaunch

extension RealThreads {
    @Suite("LaunchRunner")
    struct LaunchRunnerTests {
        init() { MainQueueProbe.install() }

        @Test("main-lane tasks run on the main queue, isolated to the main actor, pumped by the caller")
        func mainLaneOnCallerMainQueue() async throws {
            let facts = Facts()
            let graph = try LaunchGraph {
                LaunchTask("config") {
                    facts.set("config.onMain", MainQueueProbe.isOnMainQueue)
                    LaunchRehearsal.burnCPU(milliseconds: 1)
                }
                LaunchTask.onMain("theme", dependencies: ["config"]) {
                    MainActorLedger.entries.append("theme")
                    facts.set("theme.onMain", MainQueueProbe.isOnMainQueue)
                    facts.noteThread("theme")
                }
                LaunchTask("window", lane: .main, dependencies: ["theme"]) {
                    facts.set("window.onMain", MainQueueProbe.isOnMainQueue)
                    facts.noteThread("window")
                }
            }
            let runner = LaunchRunner(graph: graph)
            let (result, caller) = await onMainQueue { () -> (LaunchRunResult, pthread_t) in
                let caller = pthread_self()
                return (runner.run(until: .firstFrame, deadline: .seconds(30)), caller)
            }
            #expect(result.reachedMilestone)
            #expect(facts.get("theme.onMain") == true)
            #expect(facts.get("window.onMain") == true)
            #expect(facts.get("config.onMain") == false)
            #expect(pthread_equal(try #require(facts.thread("theme")), caller) != 0)
            #expect(pthread_equal(try #require(facts.thread("window")), caller) != 0)
            #expect(result.task("theme")?.worker == "main")
            #expect(result.task("config")?.worker?.hasPrefix("pool-") == true)
            let ledger = await MainActor.run { MainActorLedger.entries }
            #expect(ledger.contains("theme"))
        }

        @Test("main-lane tasks go through the main queue when run is called on another thread")
        func mainLaneFromBackgroundCaller() async throws {
            let facts = Facts()
            let graph = try LaunchGraph {
                LaunchTask("bg") { facts.set("bg.onMain", MainQueueProbe.isOnMainQueue) }
                LaunchTask.onMain("ui", dependencies: ["bg"]) {
                    MainActorLedger.entries.append("ui")
                    facts.set("ui.onMain", MainQueueProbe.isOnMainQueue)
                }
            }
            let runner = LaunchRunner(graph: graph)
            let result = await onThread { runner.run(until: .firstFrame, deadline: .seconds(30)) }
            #expect(result.reachedMilestone)
            #expect(facts.get("ui.onMain") == true)
            #expect(facts.get("bg.onMain") == false)
            #expect(result.task("ui")?.state == .succeeded)
        }

        @Test("a serial lane never overlaps and keeps registration order on real threads")
        func serialLaneNeverOverlaps() async throws {
            let lane = ConcurrencyProbe()
            let everything = ConcurrencyProbe()
            let graph = try LaunchGraph {
                for index in 0..<8 {
                    LaunchTask("db-\(index)", lane: .serial("db")) {
                        lane.enter("db-\(index)")
                        everything.enter("db-\(index)")
                        LaunchRehearsal.burnCPU(milliseconds: 0.5)
                        everything.leave()
                        lane.leave()
                    }
                }
                for index in 0..<6 {
                    LaunchTask("fill-\(index)", estimatedMs: 50) {
                        everything.enter("fill-\(index)")
                        LaunchRehearsal.burnCPU(milliseconds: 0.5)
                        everything.leave()
                    }
                }
            }
            let runner = LaunchRunner(graph: graph)
            let result = await onThread { runner.run(until: .firstFrame, deadline: .seconds(30)) }
            #expect(result.reachedMilestone)
            #expect(lane.maximum == 1)
            #expect(lane.started == (0..<8).map { "db-\($0)" })
            #expect(everything.maximum <= runner.cores)
        }

        @Test("no more synchronous tasks run at once than cores, main lane included")
        func boundedByCores() async throws {
            for limit in [1, 2] {
                let probe = ConcurrencyProbe()
                let graph = try LaunchGraph {
                    for index in 0..<10 {
                        LaunchTask("bg-\(index)") {
                            probe.enter("bg"); LaunchRehearsal.burnCPU(milliseconds: 0.3); probe.leave()
                        }
                    }
                    for index in 0..<3 {
                        LaunchTask("ui-\(index)", lane: .main) {
                            probe.enter("ui"); LaunchRehearsal.burnCPU(milliseconds: 0.3); probe.leave()
                        }
                    }
                }
                let runner = LaunchRunner(graph: graph, options: .init(maxConcurrency: limit))
                #expect(runner.cores == min(limit, ProcessInfo.processInfo.activeProcessorCount))
                let result = await onMainQueue { runner.run(until: .firstFrame, deadline: .seconds(30)) }
                #expect(result.reachedMilestone)
                #expect(probe.maximum <= runner.cores)
                #expect(Set(result.tasks.compactMap(\.worker)).filter { $0.hasPrefix("pool-") }.count <= runner.cores)
            }
        }

        @Test("at the deadline run returns listing the unfinished tasks, which are not cancelled")
        func deadline() async throws {
            let gate = DispatchSemaphore(value: 0)
            let facts = Facts()
            let graph = try LaunchGraph {
                LaunchTask("slow") {
                    gate.wait()
                    facts.set("slow.finished")
                }
                LaunchTask("after-slow", dependencies: ["slow"]) { facts.set("after-slow.ran") }
                LaunchTask("quick") {}
            }
            let runner = LaunchRunner(graph: graph)
            let result = await onThread { runner.run(until: .firstFrame, deadline: .milliseconds(60)) }
            #expect(!result.reachedMilestone)
            #expect(result.unfinished == ["slow", "after-slow"])
            #expect(result.elapsedMs >= 59)
            #expect(result.elapsedMs < 10_000)
            #expect(result.task("quick")?.state == .succeeded)
            #expect(result.task("slow")?.state == .running)
            #expect(result.task("after-slow")?.state == .waiting)

            gate.signal()
            let later = await onThread { runner.waitForCompletion(timeout: .seconds(30)) }
            #expect(later.task("slow")?.state == .succeeded)
            #expect(later.task("after-slow")?.state == .succeeded)
            #expect(facts.get("slow.finished") == true)
            #expect(facts.get("after-slow.ran") == true)
        }

        @Test("a timeout settles the task, skips its dependents with the reason, and never interrupts it")
        func timeout() async throws {
            let gate = DispatchSemaphore(value: 0)
            let facts = Facts()
            let graph = try LaunchGraph {
                LaunchTask("hang", timeout: .milliseconds(40)) {
                    gate.wait()
                    facts.set("hang.returned")
                }
                LaunchTask("after-hang", dependencies: ["hang"]) { facts.set("after-hang.ran") }
                LaunchTask("independent") {}
            }
            let runner = LaunchRunner(graph: graph)
            let result = await onThread { runner.run(until: .firstFrame, deadline: .seconds(30)) }
            #expect(result.reachedMilestone)
            #expect(result.elapsedMs >= 39)
            #expect(result.elapsedMs < 10_000)
            #expect(result.task("hang")?.state == .timedOut(limitMs: 40, stillRunning: true))
            #expect(result.task("after-hang")?.state
                    == .skipped(dependency: "hang", reason: "dependency \"hang\" timed out after 40 ms"))
            #expect(result.task("independent")?.state == .succeeded)
            #expect(result.unfinished.isEmpty)
            #expect(result.timedOut == ["hang"])

            gate.signal()
            let later = await onThread { runner.waitForCompletion(timeout: .seconds(30)) }
            #expect(later.task("hang")?.state == .timedOut(limitMs: 40, stillRunning: false))
            #expect(facts.get("hang.returned") == true)
            #expect(facts.get("after-hang.ran") == nil)
            #expect(runner.isComplete)
        }

        @Test("an async task past its timeout is cancelled cooperatively and holds no core meanwhile")
        func asyncTimeoutCancels() async throws {
            let facts = Facts()
            let graph = try LaunchGraph {
                LaunchTask.suspending("fetch", timeout: .milliseconds(30)) {
                    do {
                        try await Task.sleep(nanoseconds: 20_000_000_000)
                    } catch {
                        facts.set("fetch.cancelled")
                        throw error
                    }
                }
                LaunchTask("cpu") { LaunchRehearsal.burnCPU(milliseconds: 1) }
            }
            let runner = LaunchRunner(graph: graph, options: .init(maxConcurrency: 1))
            let started = Date()
            let result = await onThread { runner.run(until: .firstFrame, deadline: .seconds(30)) }
            #expect(result.task("fetch")?.state.label == "timedOut")
            #expect(result.task("cpu")?.state == .succeeded)
            let later = await onThread { runner.waitForCompletion(timeout: .seconds(15)) }
            #expect(Date().timeIntervalSince(started) < 10)
            #expect(later.task("fetch")?.state == .timedOut(limitMs: 30, stillRunning: false))
            #expect(later.task("fetch")?.worker == "async")
            #expect(facts.get("fetch.cancelled") == true)
        }

        @Test("a failure skips its dependents with the reason and lets independents run")
        func failureSkipsDependents() async throws {
            let collector = SpanCollector()
            let graph = try LaunchGraph {
                LaunchTask("disk") { throw PlannedError(description: "disk full") }
                LaunchTask("cache", dependencies: ["disk"]) {}
                LaunchTask("thumbnails", dependencies: ["cache"]) {}
                LaunchTask("network") {}
                LaunchTask("feed", dependencies: ["network"]) {}
            }
            let runner = LaunchRunner(graph: graph, options: .init(spanRecorder: collector))
            let result = await onThread { runner.run(until: .firstFrame, deadline: .seconds(30)) }
            #expect(result.reachedMilestone)
            #expect(result.failed == ["disk"])
            #expect(result.skipped == ["cache", "thumbnails"])
            #expect(result.task("cache")?.state
                    == .skipped(dependency: "disk", reason: "dependency \"disk\" failed: disk full"))
            #expect(result.task("thumbnails")?.state == .skipped(
                dependency: "cache",
                reason: "dependency \"cache\" was skipped because dependency \"disk\" failed: disk full"))
            #expect(result.task("feed")?.state == .succeeded)
            _ = await onThread { runner.waitForCompletion(timeout: .seconds(30)) }
            let spans = collector.spans
            let disk = try #require(spans.first { $0.name == "launch.task.disk" })
            #expect(disk.status == .error)
            #expect(disk.statusMessage == "disk full")
            let cache = try #require(spans.first { $0.name == "launch.task.cache" })
            #expect(cache.attributes[LaunchSpanAttribute.outcome] == "skipped")
            #expect(cache.attributes[LaunchSpanAttribute.skipReason] == "dependency \"disk\" failed: disk full")
        }

        @Test("every task's wait and run time is a span under the launch's trace, and the launch event carries them")
        func spans() async throws {
            let clock = TestClock()
            let collector = SpanCollector()
            let traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
            let graph = try LaunchGraph {
                LaunchTask("open", lane: .serial("db")) { clock.advance(byMilliseconds: 5) }
                LaunchTask("migrate", lane: .serial("db"), priority: 3) { clock.advance(byMilliseconds: 7) }
                LaunchTask("index", dependencies: ["migrate"]) { clock.advance(byMilliseconds: 2) }
            }
            let runner = LaunchRunner(graph: graph, options: .init(maxConcurrency: 1, clock: clock,
                                                                   spanRecorder: collector, traceId: traceId))
            let result = await onThread { runner.run(until: .allPhases, deadline: .seconds(30)) }
            _ = await onThread { runner.waitForCompletion(timeout: .seconds(30)) }
            #expect(result.traceId == traceId)
            #expect(result.task("open")?.runMs == 5)
            #expect(result.task("migrate")?.waitMs == 5)
            #expect(result.task("migrate")?.runMs == 7)
            #expect(result.task("index")?.startMs == 12)
            #expect(result.makespanMs == 14)
            #expect(result.analysis.criticalPath == ["open", "migrate", "index"])
            #expect(result.analysis.criticalPathMs == 14)
            #expect(result.analysis.lowerBoundMs == 14)

            let spans = collector.spans
            #expect(spans.count == 4)
            let root = try #require(spans.first { $0.name == "launch" })
            #expect(root.spanId == runner.rootSpanId)
            #expect(root.parentSpanId == nil)
            #expect(root.attributes[LaunchSpanAttribute.criticalPath] == "open,migrate,index")
            let migrate = try #require(spans.first { $0.name == "launch.task.migrate" })
            #expect(migrate.traceId == traceId)
            #expect(migrate.parentSpanId == runner.rootSpanId)
            #expect(migrate.status == .ok)
            #expect(migrate.attributes[LaunchSpanAttribute.waitMs] == .double(5))
            #expect(migrate.attributes[LaunchSpanAttribute.runMs] == .double(7))
            #expect(migrate.attributes[LaunchSpanAttribute.lane] == "serial:db")
            #expect(migrate.attributes[LaunchSpanAttribute.priority] == .int(3))
            #expect(abs(migrate.durationMs - 7) < 0.001)
            #expect(abs(migrate.start.timeIntervalSince(root.start) * 1000 - 5) < 0.001)
            let index = try #require(spans.first { $0.name == "launch.task.index" })
            #expect(index.attributes[LaunchSpanAttribute.dependencies] == "migrate")

            var payload = LaunchPayload(kind: .cold, processStart: clock.wallNow())
            result.apply(to: &payload)
            #expect(payload.traceId == traceId)
            #expect(payload.tasks?.map(\.name).sorted() == ["launch.task.index", "launch.task.migrate", "launch.task.open"])
            // The spans read back into the same launch.
            let trace = try #require(LaunchTrace.traces(from: spans).first)
            #expect(trace.tasks.map(\.id) == ["open", "migrate", "index"])
            #expect(trace.cores == 1)
            #expect(trace.tasks[1].waitMs == 5)
        }

        @Test("after-first-frame tasks wait for the first frame, idle tasks for idle turns, one main task per turn")
        func laterPhases() async throws {
            let signal = ManualIdleSignal()
            let graph = try LaunchGraph {
                LaunchTask("boot") {}
                LaunchTask("prefetch", phase: .afterFirstFrame) {}
                LaunchTask.onMain("badge", phase: .afterFirstFrame) { MainActorLedger.entries.append("badge") }
                LaunchTask("trim-disk", phase: .idle) {}
                LaunchTask.onMain("warm-1", phase: .idle, priority: 1) { MainActorLedger.entries.append("warm-1") }
                LaunchTask.onMain("warm-2", phase: .idle, priority: 1) { MainActorLedger.entries.append("warm-2") }
            }
            let runner = LaunchRunner(graph: graph, options: .init(idleSignal: signal))
            let first = await onThread { runner.run(until: .firstFrame, deadline: .seconds(30)) }
            #expect(first.reachedMilestone)
            #expect(first.task("prefetch")?.state == .waiting)
            #expect(first.task("warm-1")?.state == .waiting)
            #expect(!signal.isStarted)

            runner.reportFirstFrame()
            #expect(signal.isStarted)
            let afterFrame = await onThread { runner.waitForCompletion(timeout: .seconds(30)) }
            #expect(afterFrame.task("prefetch")?.state == .succeeded)
            #expect(afterFrame.task("badge")?.state == .succeeded)
            #expect(afterFrame.task("trim-disk")?.state == .waiting)

            await onMainQueue { signal.fire() }
            let oneTurn = runner.snapshot()
            let warmed = ["warm-1", "warm-2"].filter { oneTurn.task($0)?.state == .succeeded }
            #expect(warmed.count == 1)
            #expect(signal.turnRequests >= 1)

            await onMainQueue { signal.fire() }
            let done = await onThread { runner.waitForCompletion(timeout: .seconds(30)) }
            #expect(done.tasks.allSatisfy { $0.state == .succeeded })
            #expect(runner.isComplete)
            #expect(!signal.isStarted)
        }
        @Test("a first frame reported before run begins the later phases when run starts")
        func firstFrameBeforeRun() async throws {
            let signal = ManualIdleSignal()
            let graph = try LaunchGraph {
                LaunchTask("boot") {}
                LaunchTask("late", phase: .afterFirstFrame) {}
                LaunchTask("idle-work", phase: .idle) {}
            }
            let runner = LaunchRunner(graph: graph, options: .init(idleSignal: signal))
            runner.reportFirstFrame()
            #expect(!signal.isStarted)
            _ = await onThread { runner.run(until: .firstFrame, deadline: .seconds(30)) }
            #expect(signal.isStarted)
            let afterFrame = await onThread { runner.waitForCompletion(timeout: .seconds(30)) }
            #expect(afterFrame.task("late")?.state == .succeeded)
            #expect(afterFrame.task("idle-work")?.state == .waiting)
            signal.fire()
            let done = await onThread { runner.waitForCompletion(timeout: .seconds(30)) }
            #expect(done.task("idle-work")?.state == .succeeded)
            #expect(!signal.isStarted)
        }
    }
}
