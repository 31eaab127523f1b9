import Foundation
import VigilCommandLine
import VigilCore
import VigilLaunch

extension LaunchCommand {
    /// `vigil launch run GRAPH.json …`: the real runner on real threads, driven from the main
    /// thread the way an app drives it.
    static func rehearse(_ words: [String]) throws -> Int32 {
        let (arguments, path) = try arguments(words, valued: ["cores", "deadline-ms", "timeout-ms", "events"], flags: ["json"])
        let file = try graphFile(path)
        let graph: LaunchGraph
        do { graph = try LaunchRehearsal.graph(file) } catch { throw LaunchCommandError("\(path): \(error)") }
        let cores = try cores(arguments, file: file.cores)
        let deadlineMs = try arguments.number("deadline-ms", default: 10_000)
        let timeoutMs = try arguments.number("timeout-ms", default: 60_000)
        guard deadlineMs >= 0, timeoutMs >= 0 else { throw UsageError("--deadline-ms and --timeout-ms must not be negative") }

        let recorder = CollectingSpanRecorder()
        let runner = LaunchRunner(graph: graph, options: .init(maxConcurrency: cores, spanRecorder: recorder))
        let firstFrame = runner.run(until: .firstFrame, deadline: .milliseconds(deadlineMs))
        runner.reportFirstFrame()
        // After-first-frame main-lane tasks arrive through the main queue and idle tasks through
        // the run loop's BeforeWaiting observer, exactly as in an app.
        let limit = Date(timeIntervalSinceNow: Double(timeoutMs) / 1000)
        while !runner.isComplete, Date() < limit {
            _ = RunLoop.main.run(mode: .default, before: min(limit, Date(timeIntervalSinceNow: 0.05)))
        }
        let final = runner.waitForCompletion(timeout: .milliseconds(0))
        let spans = recorder.spans

        if let eventsPath = arguments.value("events") {
            try writeEvents(spans: spans, result: firstFrame, runner: runner, to: eventsPath)
        }
        let simulated = LaunchSimulator.simulate(graph.plan, durationsMs: file.durationsMs, cores: runner.cores,
                                                 failing: file.failing)
        if arguments.flag("json") {
            let tasks: [[String: Any]] = final.tasks.map { record in
                var object: [String: Any] = ["id": record.id, "lane": record.lane.description,
                                             "phase": record.phase.rawValue, "state": record.state.label]
                if let value = record.worker { object["worker"] = value }
                if let value = record.ranOnMainThread { object["mainThread"] = value }
                if let value = record.readyMs { object["readyMs"] = rounded(value) }
                if let value = record.startMs { object["startMs"] = rounded(value) }
                if let value = record.endMs { object["endMs"] = rounded(value) }
                if let value = record.waitMs { object["waitMs"] = rounded(value) }
                if let value = record.runMs { object["runMs"] = rounded(value) }
                if case .skipped(_, let reason) = record.state { object["reason"] = reason }
                if case .failed(let message) = record.state { object["reason"] = message }
                return object
            }
            try printJSON([
                "cores": runner.cores,
                "traceId": runner.traceId,
                "reachedFirstFrame": firstFrame.reachedMilestone,
                "firstFrameMs": rounded(firstFrame.elapsedMs),
                "makespanMs": rounded(firstFrame.makespanMs),
                "unfinishedAtFirstFrame": firstFrame.unfinished,
                "complete": runner.isComplete,
                "lowerBoundMs": rounded(firstFrame.analysis.lowerBoundMs),
                "criticalPath": firstFrame.analysis.criticalPath,
                "criticalPathMs": rounded(firstFrame.analysis.criticalPathMs),
                "simulatedMs": rounded(simulated.makespanMs),
                "spans": spans.count,
                "tasks": tasks,
            ])
        } else {
            var text = "ran \(graph.plan.count) tasks on \(runner.cores) cores: first frame "
                + (firstFrame.reachedMilestone ? "at \(LaunchTimelineText.ms(firstFrame.elapsedMs)) ms"
                    : "deadline passed after \(LaunchTimelineText.ms(firstFrame.elapsedMs)) ms, unfinished: "
                        + firstFrame.unfinished.joined(separator: ", "))
                + " (simulated \(LaunchTimelineText.ms(simulated.makespanMs)) ms)\n"
            text += analysisText(firstFrame.analysis)
            if !runner.isComplete { text += "later phases still running after \(timeoutMs) ms\n" }
            text += "\n" + LaunchTimelineText(rows: final.tasks.map {
                LaunchTimelineText.Row(id: $0.id, lane: $0.lane.description, worker: $0.worker, readyMs: $0.readyMs,
                                       startMs: $0.startMs, endMs: $0.endMs, outcome: $0.state.label)
            }).render()
            CommandDispatcher.writeStandardOutput(text)
        }
        return firstFrame.reachedMilestone ? 0 : 3
    }

    /// Writes every span as a `span` event and the launch as a `launch` event, as JSON lines.
    private static func writeEvents(spans: [SpanPayload], result: LaunchRunResult, runner: LaunchRunner,
                                    to path: String) throws {
        let session = UUID()
        let app = AppInfo(id: "vigil.launch.run", version: VigilVersion.string, build: "0")
        #if arch(arm64)
        let arch = "arm64"
        #else
        let arch = "x86_64"
        #endif
        #if os(Linux)
        let os = "Linux"
        #else
        let os = "macOS"
        #endif
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let device = DeviceInfo(model: ProcessInfo.processInfo.hostName, os: os,
                                osVersion: "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
                                arch: arch)
        let root = spans.first { $0.name == LaunchSpanAttribute.rootSpanName }
        let start = root?.start ?? spans.map(\.start).min() ?? Date()
        var launch = LaunchPayload(kind: .cold, processStart: start, ttidMs: result.elapsedMs)
        var withTasks = result
        withTasks.spans = spans.filter { $0.name.hasPrefix(LaunchSpanAttribute.taskSpanPrefix) }
        withTasks.apply(to: &launch)
        var events = spans.map { Event(time: $0.end, session: session, app: app, device: device, payload: .span($0)) }
        events.append(Event(time: start.addingTimeInterval(result.elapsedMs / 1000), session: session, app: app,
                            device: device, payload: .launch(launch)))
        try EventJSON.encodeLines(events).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
