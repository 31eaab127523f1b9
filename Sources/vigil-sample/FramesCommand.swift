import Foundation
import Vigil
import VigilCommandLine
import VigilCore
import VigilRuntime

/// Keeps the synthetic render loop's main thread busy for one frozen frame. Named so the
/// frozen frame's captured stack reads for itself; the statement after the call keeps the
/// optimizer from turning it into a tail call, which would remove this frame from the stack.
@inline(never)
func freezeRenderLoopForDemo(milliseconds: Double) {
    blockMainThreadForDemo(milliseconds: milliseconds)
    demoWorkSink &+= 1
}

/// `vigil-sample frames`: a synthetic 60 Hz render loop (a ``RunLoopFrameClock``) with scripted
/// slow and severe drops and one 900 ms freeze, then a second page at 120 Hz, fed to Vigil's
/// frame monitor.
enum FramesCommand: Command {
    static let name = "frames"
    static let summary = "render at 60 Hz with scripted drops and one 900 ms freeze, then 120 Hz"
    static let usage = """
        usage: vigil-sample frames [common options]

        Page "FramesDemo" renders 220 frames at 60 Hz (about 4.5 s): every frame costs 2 ms,
        frame 45 costs 60 ms (a slow gap, 3 frames dropped), frame 90 costs 140 ms (severe, 7+
        dropped) and frame 150 freezes the main thread for 900 ms (a frozen frame, its stack
        captured once). Page "FramesDemoDetail" then renders at 120 Hz for 1.5 s.

        common options:
        \(SampleHarness.commonUsage)
        """

    /// Extra main-thread work scripted for some frames of the first page, in ms.
    static let script: [Int: Double] = [45: 60, 90: 140, 150: 900]

    static func run(_ words: [String]) throws -> Int32 {
        let harness = try SampleHarness(words: words)
        let clock = RunLoopFrameClock(refreshRate: 60)
        var setup = try harness.setup(monitoring: VigilConfiguration(), frameSource: clock)
        setup.initialPage = "FramesDemo"
        guard Vigil.start(setup) else { throw UsageError("Vigil could not start") }
        // Vigil's frame observer was added by start and runs first: like a real display link it
        // records the frame when it begins, not after the app's render work.
        let renderer = Renderer(clock: clock)
        clock.addFrameObserver { _ in renderer.renderFrame() }
        return harness.runMainLoop { finish in
            renderer.finish = finish
            clock.start()
        }
    }

    /// Frame of the first page after which the second page (120 Hz) starts.
    static let secondPageFrame = 220

    /// The render loop's per-frame work (main thread only). The script counts rendered frames,
    /// not seconds, so that a slow machine still plays all of it on the first page.
    final class Renderer: @unchecked Sendable {
        private var frameIndex = 0
        private let clock: RunLoopFrameClock
        var finish: (@Sendable () -> Void)?

        init(clock: RunLoopFrameClock) { self.clock = clock }

        func renderFrame() {
            frameIndex += 1
            if frameIndex == FramesCommand.secondPageFrame {
                Vigil.setPage("FramesDemoDetail")
                clock.setRefreshRate(120)
                let finish = self.finish
                SampleHarness.after(1.5) {
                    self.clock.stop()
                    finish?()
                }
            }
            if frameIndex == 150 {
                freezeRenderLoopForDemo(milliseconds: FramesCommand.script[150] ?? 900)
            } else {
                blockMainThreadForDemo(milliseconds: 2 + (FramesCommand.script[frameIndex] ?? 0))
            }
        }
    }
}
