import Foundation
import Vigil
import VigilCommandLine
import VigilCore
import VigilDemoApp
import VigilLaunch
import VigilRuntime

/// `vigil-sample launch`: a cold launch whose `didFinishLaunching` runs the demo app's launch
/// tasks with the launch runner (`VigilLaunch`), then a first frame from the render loop,
/// content loading, fully drawn — measured from the kernel's process start, the tasks' spans on
/// the launch event.
enum LaunchCommand: Command {
    static let name = "launch"
    static let summary = "a cold launch: launch tasks run by the launch runner, first frame, fully drawn"
    static let usage = """
        usage: vigil-sample launch [common options]

        Marks main, then, as didFinishLaunching, runs the demo app's launch tasks (DemoLaunchGraph:
        14 tasks on the main, concurrent and a serial lane, with dependencies and an \(DemoLaunchGraph.deadlineMs) ms
        deadline) with the launch runner until the first frame may come, and attaches their
        spans to the launch (again at fully drawn, with the tasks after the first frame); marks didFinishLaunching and starts a 60 Hz render loop (its first
        frame is the time to initial display, and starts the after-first-frame tasks), loads
        "content" for 250 ms over the next frames and marks fully drawn (time to full display).
        Every task's span is also recorded as a span event.

        common options:
        \(SampleHarness.commonUsage)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let harness = try SampleHarness(words: words)
        let graph: LaunchGraph
        do { graph = try LaunchRehearsal.graph(DemoLaunchGraph.file()) } catch { throw UsageError("the demo launch graph: \(error)") }
        let clock = RunLoopFrameClock(refreshRate: 60)
        var setup = try harness.setup(monitoring: VigilConfiguration(), frameSource: clock)
        setup.initialPage = "LaunchDemo"
        guard Vigil.start(setup) else { throw UsageError("Vigil could not start") }
        Vigil.markMain()
        return harness.runMainLoop { finish in
            // application(_:didFinishLaunchingWithOptions:): the launch tasks, main-lane ones on
            // this (the main) thread, until every before-first-frame task has settled.
            let runner = LaunchRunner(graph: graph, options: .init(spanRecorder: Vigil.spanRecorder))
            let result = runner.run(until: .firstFrame, deadline: .milliseconds(DemoLaunchGraph.deadlineMs))
            Vigil.attachLaunchTasks(traceId: result.traceId, spans: result.spans)
            if !result.reachedMilestone {
                CommandDispatcher.writeStandardError("vigil-sample: launch deadline passed, unfinished: \(result.unfinished.joined(separator: ", "))\n")
            }
            Vigil.markDidFinishLaunching()
            let loader = ContentLoader(runner: runner, finish: finish)
            clock.addFrameObserver { _ in loader.frame() }
            clock.start()
        }
    }

    /// Starts the after-first-frame tasks at the first frame, loads "content" 25 ms per frame for
    /// ten frames, marks fully drawn, and finishes once the launch tasks of every phase are done
    /// (at most 30 s later), so that their span events are uploaded too.
    final class ContentLoader: @unchecked Sendable {
        private var frames = 0
        private let runner: LaunchRunner
        private let finish: @Sendable () -> Void

        init(runner: LaunchRunner, finish: @escaping @Sendable () -> Void) {
            self.runner = runner
            self.finish = finish
        }

        func frame() {
            frames += 1
            if frames == 1 { runner.reportFirstFrame() }
            if frames <= 10 {
                blockMainThreadForDemo(milliseconds: 25)
                if frames == 10 {
                    // The tasks after the first frame have run by now (the idle one perhaps not).
                    let tasks = runner.snapshot()
                    Vigil.attachLaunchTasks(traceId: tasks.traceId, spans: tasks.spans)
                    Vigil.markFullyDrawn()
                    finishWhenComplete(deadline: Date().addingTimeInterval(30))
                }
            }
        }

        private func finishWhenComplete(deadline: Date) {
            SampleHarness.after(0.3) {
                if self.runner.isComplete || Date() > deadline {
                    _ = self.runner.waitForCompletion(timeout: .milliseconds(0))
                    self.finish()
                } else {
                    self.finishWhenComplete(deadline: deadline)
                }
            }
        }
    }
}
