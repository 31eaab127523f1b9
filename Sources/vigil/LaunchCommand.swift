import Foundation
import VigilCommandLine
import VigilLaunch

/// `vigil launch`: simulate a launch task graph in virtual time, rehearse it on real threads,
/// and report on a recorded launch.
enum LaunchCommand: Command {
    static let name = "launch"
    static let summary = "simulate, rehearse and report launch task graphs"
    static let usage = """
        usage: vigil launch simulate GRAPH.json [--cores N] [--json]
               vigil launch run GRAPH.json [--cores N] [--deadline-ms MS] [--timeout-ms MS] [--events FILE] [--json]
               vigil launch report FILE [--cores N] [--trace ID] [--top N] [--json]

        simulate  schedules GRAPH.json in virtual time with the runner's rules and prints the
                  makespan, the lower bound, the serial time and the critical path, plus a
                  timeline (text) — try a reordering before shipping it.
        run       rehearses GRAPH.json on real threads with the real runner (compute tasks burn
                  CPU, block tasks sleep, await tasks suspend), from the main thread: runs until
                  the first frame (or the deadline), reports the first frame, then runs the main
                  run loop so that after-first-frame and idle tasks run. --events writes the
                  spans and a launch event as JSON lines, for `vigil launch report`.
        report    reads a recorded launch — events as JSON, a JSON array or JSON lines (a
                  `launch` event's tasks, or `span` events) — or a graph file, and prints a
                  timeline and the tasks whose removal from the critical path saves the most.

        --cores N        cores to schedule on (default: the file's "cores", else 2; for `run`,
                         at most this machine's cores)
        --deadline-ms    how long `run` waits for the first frame (default 10000)
        --timeout-ms     how long `run` waits for the later phases (default 60000)
        --trace ID       which launch of FILE to report (default: the last one)
        --top N          how many savings to list (default 5)
        --json           machine-readable output

        The graph format is documented in docs/launch.md.
        """

    static func run(_ words: [String]) throws -> Int32 {
        guard let subcommand = words.first else { throw UsageError("missing subcommand: simulate, run or report") }
        let rest = Array(words.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            CommandDispatcher.writeStandardOutput(usage + "\n")
            return 0
        }
        switch subcommand {
        case "simulate": return try simulate(rest)
        case "run": return try rehearse(rest)
        case "report": return try report(rest)
        default: throw UsageError("unknown subcommand \"\(subcommand)\": expected simulate, run or report")
        }
    }

    // MARK: - Shared

    /// Parses `words` for a subcommand taking one file and the given options.
    static func arguments(_ words: [String], valued: Set<String>, flags: Set<String>) throws -> (Arguments, String) {
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: flags, allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard arguments.positional.count == 1 else {
            throw UsageError(arguments.positional.isEmpty ? "missing FILE" : "expected one FILE, got \(arguments.positional.count)")
        }
        return (arguments, arguments.positional[0])
    }

    /// Reads at most `limit` bytes of `path`, failing with a clear message beyond.
    static func read(_ path: String, limit: Int) throws -> Data {
        let url = URL(fileURLWithPath: path)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
        guard let size else { throw LaunchCommandError("\(path): no such file") }
        guard size <= limit else { throw LaunchCommandError("\(path): \(size) bytes; at most \(limit) are read") }
        return try Data(contentsOf: url)
    }

    /// Reads and parses a graph file.
    static func graphFile(_ path: String) throws -> LaunchGraphFile {
        let data = try read(path, limit: LaunchGraphFile.maxBytes)
        do {
            return try LaunchGraphFile.parse(data)
        } catch {
            throw LaunchCommandError("\(path): \(error)")
        }
    }

    /// `--cores`, else the file's, else 2.
    static func cores(_ arguments: Arguments, file: Int?) throws -> Int {
        let value = try arguments.number("cores", default: file ?? 2)
        guard (1...1024).contains(value) else { throw UsageError("--cores must be in 1…1024") }
        return value
    }

    /// A value rounded to the microsecond, for JSON.
    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    static func printJSON(_ object: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        CommandDispatcher.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// The savings list as text lines.
    static func savingsText(_ savings: [LaunchTaskSaving], top: Int) -> String {
        guard !savings.isEmpty else { return "no task on the critical path\n" }
        var text = "remove from the critical path (e.g. move after the first frame) to save the most:\n"
        for saving in savings.prefix(top) {
            text += "  " + saving.id.padding(toLength: max(12, saving.id.count), withPad: " ", startingAt: 0)
                + "  \(LaunchTimelineText.ms(saving.durationMs)) ms  → first frame "
                + "\(LaunchTimelineText.ms(saving.makespanSavingMs)) ms sooner "
                + "(critical path −\(LaunchTimelineText.ms(saving.criticalPathSavingMs)) ms)\n"
        }
        return text
    }

    static func savingsJSON(_ savings: [LaunchTaskSaving], top: Int) -> [[String: Any]] {
        savings.prefix(top).map {
            ["id": $0.id, "durationMs": rounded($0.durationMs), "makespanSavingMs": rounded($0.makespanSavingMs),
             "criticalPathSavingMs": rounded($0.criticalPathSavingMs)]
        }
    }

    static func analysisText(_ analysis: LaunchAnalysis) -> String {
        "critical path: " + analysis.criticalPath.joined(separator: " → ")
            + " (\(LaunchTimelineText.ms(analysis.criticalPathMs)) ms)\n"
            + "lower bound: \(LaunchTimelineText.ms(analysis.lowerBoundMs)) ms, set by \(analysis.boundedBy) "
            + "(critical path \(LaunchTimelineText.ms(analysis.criticalPathMs)) ms, core work "
            + "\(LaunchTimelineText.ms(analysis.coreWorkMs)) ms / \(analysis.cores) cores, main lane "
            + "\(LaunchTimelineText.ms(analysis.mainLaneMs)) ms); serial \(LaunchTimelineText.ms(analysis.serialMs)) ms\n"
    }
}

/// A `vigil launch` failure with its message (exit status 1).
struct LaunchCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
