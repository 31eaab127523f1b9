import Foundation
import Vigil
import VigilCommandLine
import VigilCore

/// `vigil-sample report --data-dir DIR [--out FILE] [--server URL --key KEY]`: starts Vigil on
/// DIR — the relaunch after a crash — which recovers the raw crash reports earlier runs left
/// there (and a leftover hang marker): the resulting events go to FILE, or with `--server`
/// into the SDK's store and up to the server (with whatever else the crashed run had stored);
/// prints them and the recovery counters, and exits.
///
/// Reached through `report` when it gets `--out` or `--server` and no input files
/// (`report FILE…` prints events instead).
enum CrashRecoveryReport {
    static let usage = """
        usage: vigil-sample report --data-dir DIR (--out FILE | --server URL --key KEY) [common options]

          --data-dir DIR   the SDK directory the crashed run used
          --out FILE       write the recovered events (crashes, fatal hangs) as JSON lines
          --server URL     upload them (and what else the crashed run stored) to a Vigil server

        common options:
        \(SampleHarness.commonUsage)
        """

    /// Whether `words` ask for recovery rather than printing files.
    static func handles(_ words: [String]) -> Bool {
        guard let arguments = try? Arguments(words, valued: SampleHarness.commonValued.union(["frames"])) else { return false }
        return arguments.positional.isEmpty && (arguments.value("out") != nil || arguments.value("server") != nil)
    }

    static func run(_ words: [String]) throws -> Int32 {
        let harness = try SampleHarness(words: words)
        var monitoring = VigilConfiguration()
        // Recovery only: no detector needs to run for it.
        monitoring.enabledModules = [.crash]
        guard Vigil.start(try harness.setup(monitoring: monitoring)) else { throw UsageError("Vigil could not start") }
        // Stopping waits for the SDK's queue, where the recovery runs.
        let status = harness.runMainLoop { finish in SampleHarness.after(0) { finish() } }
        let recovery = Vigil.crashDiagnostics().recovery
        let discarded = recovery.discarded.map { "\"\($0.key.rawValue)\":\($0.value)" }.sorted().joined(separator: ",")
        CommandDispatcher.writeStandardOutput(
            "crash-recovery: {\"recovered\":\(recovery.recovered),\"cleanRuns\":\(recovery.cleanRuns),"
                + "\"discarded\":{\(discarded)},\"deferred\":\(recovery.deferred),\"skippedLive\":\(recovery.skippedLive),"
                + "\"hangMarkersMerged\":\(recovery.hangMarkersMerged)}\n")
        return status
    }
}
