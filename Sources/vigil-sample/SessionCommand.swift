import Foundation
import Vigil
import VigilCommandLine
import VigilCore

/// `vigil-sample session`: an app session with a known amount of foreground time: in the
/// foreground for F seconds, then in the background for B seconds, then a clean stop. Killed
/// from outside in either phase, it leaves the session marker that the next start turns into
/// an `abnormal` (foreground) or `background-killed` session.
enum SessionCommand: Command {
    static let name = "session"
    static let summary = "spend F s in the foreground and B s in the background, then stop cleanly (a session event)"
    static let usage = """
        usage: vigil-sample session --foreground-seconds F [--background-seconds B]
                                    [--marker-interval-ms MS] [common options]

          --foreground-seconds F   time in the foreground (fractions allowed)
          --background-seconds B   then time in the background (default 0)
          --marker-interval-ms MS  how often the session marker is rewritten (default: the SDK's, 5000)

        The session's `session` event (outcome `exited`) is written at the clean stop; a session
        an earlier run left (same --data-dir) is reported at start with its inferred outcome.

        common options:
        \(SampleHarness.commonUsage)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued = SampleHarness.commonValued.union(["foreground-seconds", "background-seconds", "marker-interval-ms"])
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument \(arguments.positional[0])") }
        let foreground = try arguments.number("foreground-seconds", default: Double.nan)
        guard foreground.isFinite, (0...3600).contains(foreground) else {
            throw UsageError("--foreground-seconds must be between 0 and 3600")
        }
        let background = try arguments.number("background-seconds", default: 0.0)
        guard background.isFinite, (0...3600).contains(background) else {
            throw UsageError("--background-seconds must be between 0 and 3600")
        }
        let harness = try SampleHarness(arguments: arguments)
        var setup = try harness.setup(monitoring: VigilConfiguration())
        setup.initialPage = "SessionDemo"
        if arguments.value("marker-interval-ms") != nil {
            let milliseconds = try arguments.number("marker-interval-ms", default: 5000.0)
            guard milliseconds.isFinite, (200...300_000).contains(milliseconds) else {
                throw UsageError("--marker-interval-ms must be between 200 and 300000")
            }
            setup.sessionMarkerIntervalSeconds = milliseconds / 1000
        }
        guard Vigil.start(setup) else { throw UsageError("Vigil could not start") }
        return harness.runMainLoop { finish in
            Vigil.setAppState(.foreground)
            SampleHarness.after(foreground) {
                Vigil.setAppState(.background)
                SampleHarness.after(background) { finish() }
            }
        }
    }
}
