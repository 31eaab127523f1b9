import Foundation
import Vigil
import VigilCommandLine
import VigilCore
import VigilRuntime

/// `vigil-sample launch`: a scripted launch — setup work, didFinishLaunching, a first frame from
/// the render loop, content loading, fully drawn — measured from the kernel's process start.
enum LaunchCommand: Command {
    static let name = "launch"
    static let summary = "a scripted cold launch: didFinishLaunching, first frame, fully drawn"
    static let usage = """
        usage: vigil-sample launch [common options]

        Marks main, does 120 ms of setup work, marks didFinishLaunching, starts a 60 Hz render
        loop (its first frame is the time to initial display), loads "content" for 250 ms over
        the next frames and marks fully drawn (time to full display).

        common options:
        \(SampleHarness.commonUsage)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let harness = try SampleHarness(words: words)
        let clock = RunLoopFrameClock(refreshRate: 60)
        var setup = try harness.setup(monitoring: VigilConfiguration(), frameSource: clock)
        setup.initialPage = "LaunchDemo"
        guard Vigil.start(setup) else { throw UsageError("Vigil could not start") }
        Vigil.markMain()
        return harness.runMainLoop { finish in
            blockMainThreadForDemo(milliseconds: 120)  // application(_:didFinishLaunchingWithOptions:)
            Vigil.markDidFinishLaunching()
            let loader = ContentLoader(finish: finish)
            clock.addFrameObserver { _ in loader.frame() }
            clock.start()
        }
    }

    /// Loads "content" 25 ms per frame for ten frames, then marks fully drawn.
    final class ContentLoader: @unchecked Sendable {
        private var frames = 0
        private let finish: @Sendable () -> Void

        init(finish: @escaping @Sendable () -> Void) { self.finish = finish }

        func frame() {
            frames += 1
            if frames <= 10 {
                blockMainThreadForDemo(milliseconds: 25)
                if frames == 10 {
                    Vigil.markFullyDrawn()
                    SampleHarness.after(0.3) { self.finish() }
                }
            }
        }
    }
}
