import Foundation
import VigilCommandLine
import VigilCore
import VigilLaunch

extension LaunchCommand {
    /// Largest events file `report` reads, in bytes.
    static let maxReportBytes = 64 << 20

    /// `vigil launch report FILE [--cores N] [--trace ID] [--top N] [--json]`.
    static func report(_ words: [String]) throws -> Int32 {
        let (arguments, path) = try arguments(words, valued: ["cores", "trace", "top"], flags: ["json"])
        let top = try arguments.number("top", default: 5)
        guard top >= 0 else { throw UsageError("--top must not be negative") }
        let data = try read(path, limit: maxReportBytes)

        let trace: LaunchTrace
        switch try loadLaunch(data, path: path) {
        case .graph(let file):
            // A graph file: report on its simulation.
            let plan: LaunchPlan
            do { plan = try file.plan() } catch { throw LaunchCommandError("\(path): \(error)") }
            let cores = try cores(arguments, file: file.cores)
            let simulation = LaunchSimulator.simulate(plan, durationsMs: file.durationsMs, cores: cores, failing: file.failing)
            trace = LaunchTrace(simulation: simulation, plan: plan)
        case .spans(let spans):
            let traces = LaunchTrace.traces(from: spans)
            if let wanted = arguments.value("trace") {
                guard let match = traces.first(where: { $0.traceId == wanted }) else {
                    throw LaunchCommandError("\(path): no launch with trace id \(wanted); it holds "
                        + (traces.isEmpty ? "none" : traces.map(\.traceId).joined(separator: ", ")))
                }
                trace = match
            } else {
                guard let last = traces.last else {
                    throw LaunchCommandError("\(path): no launch task spans (span names starting with \"launch.task.\")")
                }
                trace = last
            }
        }

        guard trace.tasks.count <= LaunchGraphFile.maxTasks else {
            throw LaunchCommandError("\(path): launch \(trace.traceId) has \(trace.tasks.count) tasks; "
                + "at most \(LaunchGraphFile.maxTasks) are reported")
        }
        let cores = try arguments.value("cores") == nil ? (trace.cores ?? 2) : self.cores(arguments, file: nil)
        let (plan, durations) : (LaunchPlan, [Double])
        do { (plan, durations) = try trace.plan() } catch { throw LaunchCommandError("\(path): \(error)") }
        let beforeFirstFrame = plan.specs.map { $0.phase == .beforeFirstFrame }
        let analysis = LaunchAnalysis(plan: plan, durationsMs: durations, cores: cores, including: beforeFirstFrame)
        let savings = LaunchSimulator.removalSavings(plan, durationsMs: durations, cores: cores, limit: max(top, 10))
        let firstFrame = trace.firstFrameMs
        let problems = trace.tasks.filter { ["failed", "timedOut", "skipped"].contains($0.outcome) }

        if arguments.flag("json") {
            try printJSON([
                "traceId": trace.traceId,
                "cores": cores,
                "tasks": trace.tasks.count,
                "firstFrameMs": rounded(firstFrame),
                "lowerBoundMs": rounded(analysis.lowerBoundMs),
                "boundedBy": analysis.boundedBy,
                "serialMs": rounded(analysis.serialMs),
                "criticalPath": analysis.criticalPath,
                "criticalPathMs": rounded(analysis.criticalPathMs),
                "savings": savingsJSON(savings, top: top),
                "problems": problems.map { ["id": $0.id, "outcome": $0.outcome, "reason": $0.message ?? ""] },
                "absentDependencies": trace.absentDependencies,
            ])
            return 0
        }
        var text = "launch \(trace.traceId): \(trace.tasks.count) tasks on \(cores) cores, first frame at "
            + "\(LaunchTimelineText.ms(firstFrame)) ms"
        if analysis.lowerBoundMs > 0 {
            text += " (\(String(format: "%.2f", firstFrame / analysis.lowerBoundMs))× the lower bound)"
        }
        text += "\n" + analysisText(analysis) + "\n"
        text += LaunchTimelineText(rows: trace.tasks.map {
            let ran = $0.outcome != "skipped"
            return LaunchTimelineText.Row(id: $0.id, lane: $0.lane.description, worker: $0.worker, readyMs: $0.readyMs,
                                          startMs: ran ? $0.startMs : nil, endMs: ran ? $0.endMs : nil,
                                          outcome: $0.outcome)
        }).render() + "\n"
        text += savingsText(savings, top: top)
        if !problems.isEmpty {
            text += "\nproblems:\n" + problems.map { "  \($0.id): \($0.outcome)" + ($0.message.map { " — \($0)" } ?? "") }
                .joined(separator: "\n") + "\n"
        }
        if !trace.absentDependencies.isEmpty {
            text += "\nnote: dependencies without a span in this launch were ignored: "
                + trace.absentDependencies.joined(separator: ", ") + "\n"
        }
        CommandDispatcher.writeStandardOutput(text)
        return 0
    }

    private enum LoadedLaunch {
        case graph(LaunchGraphFile)
        case spans([SpanPayload])
    }

    /// Reads `data` as events (one JSON event, a JSON array or JSON lines) or, failing that, as
    /// a graph file.
    private static func loadLaunch(_ data: Data, path: String) throws -> LoadedLaunch {
        let first = data.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
        var events: [Event] = []
        var eventError: String?
        if first == UInt8(ascii: "{"), let single = try? EventJSON.decode(data) {
            events = [single]
        } else if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            do {
                let results = try EventJSON.decodeBatch(data)
                events = results.compactMap { try? $0.get() }
                if events.isEmpty, case .failure(let failure)? = results.first {
                    eventError = "event \(failure.index): \(failure.reason)"
                }
            } catch {
                eventError = String(describing: error)
            }
        }
        if events.isEmpty, first == UInt8(ascii: "{") {
            do {
                return .graph(try LaunchGraphFile.parse(data))
            } catch {
                throw LaunchCommandError("\(path): neither launch events (\(eventError ?? "none found")) "
                    + "nor a launch graph (\(error))")
            }
        }
        guard !events.isEmpty else {
            throw LaunchCommandError("\(path): no events found" + (eventError.map { " (\($0))" } ?? ""))
        }
        return .spans(LaunchTrace.spans(in: events))
    }
}
