import Foundation
import Vigil
import VigilCommandLine
import VigilCore

/// `vigil-sample hang`: blocks the main thread inside `blockMainThreadForDemo` and lets Vigil
/// report the hang.
enum HangCommand: Command {
    static let name = "hang"
    static let summary = "block the main thread (in blockMainThreadForDemo) and report the hang"
    static let usage = """
        usage: vigil-sample hang --seconds S [--block-ms MS] [--threshold-ms T] [common options]

          --seconds S        block the main thread for S seconds (fractions allowed)
          --block-ms MS      block for MS milliseconds instead (for sub-second blocks)
          --threshold-ms T   hang threshold (default 2000, at least 100)

        common options:
        \(SampleHarness.commonUsage)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = SampleHarness.commonValued.union(["seconds", "block-ms", "threshold-ms"])
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument \(arguments.positional[0])") }
        let blockMs: Double
        if arguments.value("block-ms") != nil {
            blockMs = try arguments.number("block-ms", default: 0.0)
        } else if arguments.value("seconds") != nil {
            blockMs = try arguments.number("seconds", default: 0.0) * 1000
        } else {
            throw UsageError("give --seconds S or --block-ms MS")
        }
        guard blockMs.isFinite, blockMs >= 0, blockMs <= 600_000 else {
            throw UsageError("the block must be between 0 and 600 s")
        }
        var monitoring = VigilConfiguration()
        monitoring.hang.thresholdMs = try arguments.number("threshold-ms", default: monitoring.hang.thresholdMs)
        if let problem = monitoring.hang.problems().first { throw UsageError("--threshold-ms: \(problem)") }

        let harness = try SampleHarness(arguments: arguments)
        var setup = try harness.setup(monitoring: monitoring)
        // The page the hang belongs to, as an app reports its visible screen (the server ranks
        // hangs by page).
        setup.initialPage = "HangDemo"
        guard Vigil.start(setup) else {
            throw UsageError("Vigil could not start")
        }
        return harness.runMainLoop { finish in
            // Let the run loop settle, block in one timer callback (one busy turn), then give
            // the loop a turn to reach BeforeWaiting before stopping.
            SampleHarness.after(0.2) {
                let started = DispatchTime.now().uptimeNanoseconds
                blockMainThreadForDemo(milliseconds: blockMs)
                // What the block really took (a loaded machine stretches it past its deadline):
                // the real-process tests compare the hang with this, not with the nominal time.
                let blocked = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
                CommandDispatcher.writeStandardOutput("vigil-sample: blocked the main thread for \(blocked) ms\n")
                SampleHarness.after(0.2) { finish() }
            }
        }
    }
}
