import Foundation
import Testing
import VigilCore
import VigilLaunch
import VigilTestSupport

/// `vigil launch` as a real process: the simulator's JSON, the rehearsal on the process's real
/// main thread, and the report read back from the events it wrote.
@Suite("vigil launch")
struct LaunchCommandTests {
    private static let graph = """
        {"cores": 2, "tasks": [
          {"id": "config", "durationMs": 6, "work": "block"},
          {"id": "keychain", "durationMs": 5, "work": "await"},
          {"id": "logging", "durationMs": 2, "dependencies": ["config"]},
          {"id": "db-open", "durationMs": 8, "lane": "serial:storage", "dependencies": ["config"]},
          {"id": "db-migrate", "durationMs": 4, "lane": "serial:storage"},
          {"id": "session", "durationMs": 10, "work": "await", "dependencies": ["keychain", "db-migrate"]},
          {"id": "theme", "durationMs": 2, "lane": "main", "dependencies": ["config"]},
          {"id": "root-view", "durationMs": 3, "lane": "main", "dependencies": ["theme", "session"]},
          {"id": "analytics", "durationMs": 2, "phase": "afterFirstFrame", "dependencies": ["logging"]},
          {"id": "badge", "durationMs": 1, "lane": "main", "phase": "afterFirstFrame"},
          {"id": "cache-trim", "durationMs": 1, "lane": "main", "phase": "idle"},
          {"id": "broken", "durationMs": 1, "phase": "idle", "fails": true},
          {"id": "after-broken", "durationMs": 1, "phase": "idle", "dependencies": ["broken"]}
        ]}
        """

    private func vigil(_ arguments: [String]) throws -> ChildProcess.Outcome {
        try ChildProcess.run(try BuildProducts.executable("vigil"), ["launch"] + arguments, timeout: 60)
    }

    private func json(_ outcome: ChildProcess.Outcome) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8))
        return try #require(object as? [String: Any], "\(outcome)")
    }

    @Test("simulate --json prints the makespan, the lower bound, the serial time and the critical path")
    func simulateJSON() throws {
        let directory = try TemporaryDirectory(prefix: "launch")
        let path = directory.file("graph.json")
        try Data(Self.graph.utf8).write(to: path)
        let outcome = try vigil(["simulate", path.path, "--json"])
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let result = try json(outcome)
        // config 6 → db-open 8 → db-migrate 4 → session 10 → root-view 3 = 31 ms.
        #expect(result["makespanMs"] as? Double == 31)
        #expect(result["lowerBoundMs"] as? Double == 31)
        #expect(result["serialMs"] as? Double == 40)
        #expect(result["criticalPath"] as? [String] == ["config", "db-open", "db-migrate", "session", "root-view"])
        #expect(result["cores"] as? Int == 2)

        let oneCore = try json(try vigil(["simulate", path.path, "--json", "--cores", "1"]))
        #expect(oneCore["cores"] as? Int == 1)
        #expect((oneCore["makespanMs"] as? Double ?? 0) >= 31)
    }

    @Test("simulate prints a timeline and the savings as text")
    func simulateText() throws {
        let directory = try TemporaryDirectory(prefix: "launch")
        let path = directory.file("graph.json")
        try Data(Self.graph.utf8).write(to: path)
        let outcome = try vigil(["simulate", path.path])
        #expect(outcome.exitStatus == 0, "\(outcome)")
        #expect(outcome.standardOutput.contains("critical path: config → db-open → db-migrate → session → root-view"))
        #expect(outcome.standardOutput.contains("save the most"))
        #expect(outcome.standardOutput.contains("|"))
    }

    @Test("run drives the real runner from the process's main thread: main-lane tasks on the main thread, the rest off it")
    func runOnMainThread() throws {
        let directory = try TemporaryDirectory(prefix: "launch")
        let path = directory.file("graph.json")
        let events = directory.file("events.jsonl")
        try Data(Self.graph.utf8).write(to: path)
        let outcome = try vigil(["run", path.path, "--json", "--events", events.path, "--timeout-ms", "20000"])
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let result = try json(outcome)
        #expect(result["reachedFirstFrame"] as? Bool == true)
        #expect(result["complete"] as? Bool == true)
        let tasks = try #require(result["tasks"] as? [[String: Any]])
        #expect(tasks.count == 13)
        for task in tasks {
            let id = task["id"] as? String ?? "?"
            let state = task["state"] as? String
            switch id {
            case "broken": #expect(state == "failed")
            case "after-broken": #expect(state == "skipped")
            default: #expect(state == "succeeded", "\(id)")
            }
            guard state != "skipped" else { continue }
            let onMainLane = task["lane"] as? String == "main"
            // The idle and after-first-frame main tasks too: through the main queue and the
            // run loop's idle observer.
            #expect(task["mainThread"] as? Bool == onMainLane, "\(id)")
            #expect((task["worker"] as? String == "main") == onMainLane, "\(id)")
        }
        let byId = Dictionary(uniqueKeysWithValues: tasks.map { ($0["id"] as? String ?? "", $0) })
        let firstFrame = try #require(result["firstFrameMs"] as? Double)
        for late in ["analytics", "badge", "cache-trim"] {
            #expect((byId[late]?["startMs"] as? Double ?? 0) >= firstFrame - 0.01, "\(late)")
        }

        // The events file holds a launch event with the task spans, read back by report.
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
        let decoded = try lines.map { try EventJSON.decode(Data($0.utf8)) }
        let launch = decoded.compactMap { if case .launch(let payload) = $0.payload { return payload }; return nil }
        #expect(launch.count == 1)
        #expect(launch.first?.traceId == result["traceId"] as? String)
        #expect(launch.first?.tasks?.count == 13)
        let report = try vigil(["report", events.path, "--json"])
        #expect(report.exitStatus == 0, "\(report)")
        let reported = try json(report)
        #expect(reported["traceId"] as? String == result["traceId"] as? String)
        #expect(reported["tasks"] as? Int == 13)
        #expect(reported["criticalPath"] as? [String] == result["criticalPath"] as? [String])
        let problems = try #require(reported["problems"] as? [[String: Any]])
        #expect(Set(problems.compactMap { $0["id"] as? String }) == ["broken", "after-broken"])
    }

    @Test("report prints a timeline and the tasks whose removal saves the most, from a launch event")
    func reportText() throws {
        let directory = try TemporaryDirectory(prefix: "launch")
        let traceId = "0af7651916cd43dd8448eb211c80319c"
        let origin = Date(timeIntervalSince1970: 1_795_985_000)
        func span(_ id: String, _ start: Double, _ run: Double, dependencies: String = "", lane: String = "concurrent") -> SpanPayload {
            SpanPayload(traceId: traceId, spanId: TraceIdentifier.spanId(), name: "launch.task.\(id)",
                        start: origin.addingTimeInterval(start / 1000), end: origin.addingTimeInterval((start + run) / 1000),
                        status: .ok, attributes: [LaunchSpanAttribute.taskId: .string(id), LaunchSpanAttribute.lane: .string(lane),
                                                  LaunchSpanAttribute.dependencies: .string(dependencies),
                                                  LaunchSpanAttribute.startOffsetMs: .double(start),
                                                  LaunchSpanAttribute.runMs: .double(run),
                                                  LaunchSpanAttribute.cores: .int(2)])
        }
        let spans = [span("config", 0, 10), span("fonts", 0, 5), span("db", 10, 50, dependencies: "config"),
                     span("window", 60, 20, dependencies: "db,fonts", lane: "main")]
        var payload = LaunchPayload(kind: .cold, processStart: origin, ttidMs: 80, traceId: traceId, tasks: spans)
        payload.tasks = spans
        let event = Event(time: origin, session: UUID(), app: SampleEvents.app, device: SampleEvents.device,
                          payload: .launch(payload))
        let file = directory.file("launch.json")
        try EventJSON.makeEncoder(pretty: true).encode(event).write(to: file)
        let outcome = try vigil(["report", file.path])
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let text = outcome.standardOutput
        #expect(text.contains("4 tasks on 2 cores, first frame at 80.0 ms"))
        #expect(text.contains("critical path: config → db → window (80.0 ms)"))
        #expect(text.contains("db            50.0 ms  → first frame 50.0 ms sooner"))
        #expect(text.contains("|#"))
    }

    @Test("bad input fails with a message naming the problem", arguments: [
        ("{\"tasks\": [{\"id\": \"a\", \"durationMs\": 1, \"dependencies\": [\"zz\"]}]}", "depends on \"zz\""),
        ("{\"tasks\": [{\"id\": \"a\", \"durationMs\": 1, \"lane\": \"x\"}]}", "tasks[0].lane"),
        ("{\"tasks\": [{\"id\": \"a\", \"durationMs\": 1, \"dependencies\": [\"b\"]}, {\"id\": \"b\", \"durationMs\": 1, \"dependencies\": [\"a\"]}]}",
         "dependency cycle"),
    ])
    func badGraph(text: String, message: String) throws {
        let directory = try TemporaryDirectory(prefix: "launch")
        let path = directory.file("graph.json")
        try Data(text.utf8).write(to: path)
        let outcome = try vigil(["simulate", path.path])
        #expect(outcome.exitStatus == 1)
        #expect(outcome.standardError.contains(message), "\(outcome)")
    }

    @Test("usage errors exit with EX_USAGE")
    func usage() throws {
        #expect(try vigil([]).exitStatus == 64)
        #expect(try vigil(["juggle", "x"]).exitStatus == 64)
        #expect(try vigil(["simulate"]).exitStatus == 64)
        #expect(try vigil(["simulate", "a.json", "--frobnicate"]).exitStatus == 64)
        #expect(try vigil(["simulate", "--help"]).exitStatus == 0)
        #expect(try vigil(["report", "/nonexistent/launch.json"]).exitStatus == 1)
    }
}
