import Foundation
import VigilCommandLine
import VigilCore

/// `vigil-sample report FILE…`: prints the events of JSON-lines files, one line each, with the
/// hot stack of every hang and the stack of every frozen frame symbolicated by
/// `llvm-symbolizer` through the event's `images` (the demo's stand-in until Vigil's own
/// symbolicator lands; binaries must still be where the events say they were).
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "print events from JSON-lines files, stacks symbolicated with llvm-symbolizer"
    static let usage = """
        usage: vigil-sample report FILE... [--frames N]
               vigil-sample report --data-dir DIR (--out FILE | --server URL --key KEY)   (the relaunch after
                   a crash: recover its report; see crash)

          --frames N   frames printed per stack (default 12)

        Symbolicates with llvm-symbolizer ($VIGIL_SYMBOLIZER, PATH, or /opt/swift/usr/bin) and
        demangles with swift-demangle when it is found beside it.
        """

    static func run(_ words: [String]) throws -> Int32 {
        // `report --data-dir DIR --out FILE | --server URL`: recover pending crash reports (CrashRecoveryReport).
        if CrashRecoveryReport.handles(words) { return try CrashRecoveryReport.run(words) }
        let arguments = try Arguments(words, valued: ["frames"])
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: ["frames"])
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard !arguments.positional.isEmpty else { throw UsageError("give at least one JSON-lines file") }
        let depth = try arguments.number("frames", default: 12)
        guard depth > 0 else { throw UsageError("--frames must be positive") }
        let symbolizer = StackSymbolizer()
        var output = ""
        for path in arguments.positional {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw ReportError(description: "cannot read \(path): \(error.localizedDescription)")
            }
            output += "\(path):\n"
            let results = try EventJSON.decodeBatch(data)
            if results.isEmpty { output += "  no events\n" }
            for (index, result) in results.enumerated() {
                switch result {
                case .failure(let failure):
                    output += "  event \(index): unreadable: \(failure.reason)\n"
                case .success(let event):
                    output += "  " + EventSummary.line(for: event) + "\n"
                    for (title, stack) in stacks(of: event) {
                        output += "    \(title):\n"
                        for line in symbolizer.describe(stack: stack, images: event.images ?? []).prefix(depth) {
                            output += "      \(line)\n"
                        }
                    }
                }
            }
        }
        if let problem = symbolizer.problem { output += "(\(problem))\n" }
        CommandDispatcher.writeStandardOutput(output)
        return 0
    }

    /// The stacks worth printing: a hang's hot stack, each frozen frame's stack.
    private static func stacks(of event: Event) -> [(String, [Address])] {
        switch event.payload {
        case .hang(let hang):
            return hang.hotStack.map { [("hot stack (innermost first)", $0)] } ?? []
        case .crash(let crash):
            return crash.threads.filter(\.crashed).map { ("crashed thread \($0.name ?? "")", $0.frames) }
        case .frames(let frames):
            return (frames.frozenFrames ?? []).compactMap { frozen in
                frozen.stack.map { (String(format: "frozen frame of %.0f ms, main thread", frozen.durationMs), $0) }
            }
        default:
            return []
        }
    }

    struct ReportError: Error, CustomStringConvertible {
        var description: String
    }
}
