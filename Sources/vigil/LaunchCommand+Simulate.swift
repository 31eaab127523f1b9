import Foundation
import VigilCommandLine
import VigilLaunch

extension LaunchCommand {
    /// `vigil launch simulate GRAPH.json [--cores N] [--json]`.
    static func simulate(_ words: [String]) throws -> Int32 {
        let (arguments, path) = try arguments(words, valued: ["cores"], flags: ["json"])
        let file = try graphFile(path)
        let plan: LaunchPlan
        do { plan = try file.plan() } catch { throw LaunchCommandError("\(path): \(error)") }
        let cores = try cores(arguments, file: file.cores)
        let simulation = LaunchSimulator.simulate(plan, durationsMs: file.durationsMs, cores: cores, failing: file.failing)
        let analysis = simulation.analysis
        if arguments.flag("json") {
            let tasks: [[String: Any]] = simulation.entries.map { entry in
                var object: [String: Any] = ["id": entry.id, "lane": entry.lane.description, "phase": entry.phase.rawValue,
                                             "state": entry.state.label]
                if let worker = entry.worker { object["worker"] = worker }
                if let value = entry.readyMs { object["readyMs"] = rounded(value) }
                if let value = entry.startMs { object["startMs"] = rounded(value) }
                if let value = entry.endMs { object["endMs"] = rounded(value) }
                return object
            }
            try printJSON([
                "cores": cores,
                "makespanMs": rounded(simulation.makespanMs),
                "completionMs": rounded(simulation.completionMs),
                "lowerBoundMs": rounded(analysis.lowerBoundMs),
                "boundedBy": analysis.boundedBy,
                "serialMs": rounded(analysis.serialMs),
                "criticalPath": analysis.criticalPath,
                "criticalPathMs": rounded(analysis.criticalPathMs),
                "coreWorkMs": rounded(analysis.coreWorkMs),
                "mainLaneMs": rounded(analysis.mainLaneMs),
                "tasks": tasks,
            ])
            return 0
        }
        let rows = simulation.entries.map {
            LaunchTimelineText.Row(id: $0.id, lane: $0.lane.description, worker: $0.worker, readyMs: $0.readyMs,
                                   startMs: $0.startMs, endMs: $0.endMs, outcome: $0.state.label)
        }
        var text = "simulated \(plan.count) tasks on \(cores) cores: first frame at "
            + "\(LaunchTimelineText.ms(simulation.makespanMs)) ms (all phases done at "
            + "\(LaunchTimelineText.ms(simulation.completionMs)) ms)\n"
        text += analysisText(analysis)
        let speedup = simulation.makespanMs > 0 ? analysis.serialMs / simulation.makespanMs : 1
        text += "makespan / lower bound: \(String(format: "%.3f", analysis.lowerBoundMs > 0 ? simulation.makespanMs / analysis.lowerBoundMs : 1)), "
            + "speed-up over serial: \(String(format: "%.2f", speedup))×\n\n"
        text += LaunchTimelineText(rows: rows).render() + "\n"
        text += savingsText(LaunchSimulator.removalSavings(plan, durationsMs: file.durationsMs, cores: cores), top: 5)
        CommandDispatcher.writeStandardOutput(text)
        return 0
    }
}
