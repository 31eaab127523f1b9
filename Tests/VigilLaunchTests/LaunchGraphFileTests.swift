import Foundation
import Testing
import VigilCore
import VigilLaunch

@Suite("Launch graph files")
struct LaunchGraphFileTests {
    private func parse(_ text: String) throws -> LaunchGraphFile {
        try LaunchGraphFile.parse(Data(text.utf8))
    }

    private func error(_ text: String) -> LaunchGraphFileError? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as LaunchGraphFileError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("every field is read, and defaults fill what is left out")
    func readsEveryField() throws {
        let file = try parse("""
            {"cores": 3, "tasks": [
              {"id": "a", "durationMs": 4.5},
              {"id": "b", "durationMs": 10, "dependencies": ["a"], "lane": "serial:db", "phase": "afterFirstFrame",
               "priority": -2, "timeoutMs": 50, "estimatedMs": 9, "work": "block", "fails": true},
              {"id": "c", "durationMs": 0, "lane": "main"},
              {"id": "d", "durationMs": 80, "work": "await", "phase": "idle"}
            ]}
            """)
        #expect(file.cores == 3)
        #expect(file.tasks.count == 4)
        #expect(file.tasks[0] == LaunchGraphFile.Task(spec: LaunchTaskSpec(id: "a"), durationMs: 4.5))
        let b = file.tasks[1]
        #expect(b.spec == LaunchTaskSpec(id: "b", dependencies: ["a"], lane: .serial("db"), phase: .afterFirstFrame,
                                         priority: -2, timeoutMs: 50, estimatedMs: 9))
        #expect(b.work == .block)
        #expect(b.fails)
        #expect(file.tasks[2].spec.lane == .main)
        #expect(file.tasks[3].spec.suspends)
        #expect(file.failing == [1])
        #expect(try file.plan().count == 4)
    }

    @Test("encoded files parse back to the same graph")
    func roundTrip() throws {
        let file = LaunchGraphFile(cores: 2, tasks: [
            LaunchGraphFile.Task(spec: LaunchTaskSpec(id: "x", priority: 4, timeoutMs: 12), durationMs: 3),
            LaunchGraphFile.Task(spec: LaunchTaskSpec(id: "y", dependencies: ["x"], lane: .serial("io"), phase: .idle,
                                                      estimatedMs: 2), durationMs: 7.25, work: .await, fails: true),
        ])
        #expect(try LaunchGraphFile.parse(file.encoded()) == file)
    }

    @Test("malformed input is rejected with the path of the field at fault", arguments: [
        (#"{"tasks": [{"id": "a", "durationMs": 1, "dependsOn": ["b"]}]}"#, "tasks[0].dependsOn"),
        (#"{"tasks": [{"id": "a"}]}"#, "tasks[0].durationMs"),
        (#"{"tasks": [{"id": "a", "durationMs": -1}]}"#, "tasks[0].durationMs"),
        (#"{"tasks": [{"id": "a", "durationMs": 1e300}]}"#, "tasks[0].durationMs"),
        (#"{"tasks": [{"id": "a", "durationMs": 1}, {"id": "b", "durationMs": 1, "lane": "sideways"}]}"#, "tasks[1].lane"),
        (#"{"tasks": [{"id": "a", "durationMs": 1, "lane": "serial:"}]}"#, "tasks[0].lane"),
        (#"{"tasks": [{"id": "a", "durationMs": 1, "phase": "later"}]}"#, "tasks[0].phase"),
        (#"{"tasks": [{"id": "a", "durationMs": 1, "work": "sleep"}]}"#, "tasks[0].work"),
        (#"{"tasks": [{"id": "a", "durationMs": 1, "timeoutMs": 0}]}"#, "tasks[0].timeoutMs"),
        (#"{"tasks": [{"id": "a", "durationMs": 1, "fails": 1}]}"#, "tasks[0].fails"),
        (#"{"tasks": [{"id": 7, "durationMs": 1}]}"#, "tasks[0].id"),
        (#"{"cores": 0, "tasks": []}"#, "cores"),
        (#"{"tasks": {}}"#, "tasks"),
        (#"{"task": []}"#, "task"),
    ])
    func rejects(text: String, path: String) {
        #expect(error(text)?.path == path, "\(text)")
    }

    @Test("input that is not JSON at all is an error about the document, never a trap")
    func notJSON() {
        for text in ["", "{", "[1, 2]", "null", "\u{0}\u{1}", String(repeating: "[", count: 10_000)] {
            #expect(error(text) != nil)
        }
    }

    @Test("graph problems in a valid file come from the plan")
    func graphProblems() throws {
        let file = try parse(#"{"tasks": [{"id": "a", "durationMs": 1, "dependencies": ["a"]}]}"#)
        #expect(throws: LaunchGraphError.self) { try file.plan() }
    }

    @Test("files over the size limit are refused before parsing")
    func sizeLimit() {
        let data = Data(repeating: 0x20, count: LaunchGraphFile.maxBytes + 1)
        #expect(throws: LaunchGraphFileError.self) { try LaunchGraphFile.parse(data) }
    }

    @Test("2,000 seeded corruptions of a valid file parse or fail cleanly, and what parses plans and simulates")
    func corruptedFilesNeverTrap() throws {
        var tasks: [LaunchGraphFile.Task] = []
        for index in 0..<12 {
            let lane: LaunchLane = index % 4 == 0 ? .main : (index % 4 == 1 ? .serial("s") : .concurrent)
            let dependencies = index > 0 ? ["t\(index - 1)"] : []
            let spec = LaunchTaskSpec(id: "t\(index)", dependencies: dependencies, lane: lane,
                                      phase: index > 9 ? .idle : .beforeFirstFrame, timeoutMs: index == 5 ? 3 : nil)
            let work: LaunchGraphFile.Work = index % 3 == 2 && lane != .main ? .await : .compute
            tasks.append(LaunchGraphFile.Task(spec: spec, durationMs: Double(index), work: work, fails: index == 7))
        }
        let valid = LaunchGraphFile(cores: 2, tasks: tasks).encoded()
        #expect(try LaunchGraphFile.parse(valid).plan().count == 12)
        var generator = SeededGenerator(seed: 77)
        let alphabet = Array(#"{}[]:,"0123456789.-eE tasksidlanephaseworkmainserial:truefalsenull\"#.utf8)
        var parsed = 0
        for _ in 0..<2000 {
            var bytes = Array(valid)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[position] = alphabet.randomElement(using: &generator) ?? 0
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(alphabet.randomElement(using: &generator) ?? 0, at: position)
                default: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...40, using: &generator)))
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            guard let file = try? LaunchGraphFile.parse(Data(bytes)) else { continue }
            parsed += 1
            guard let plan = try? file.plan() else { continue }
            let simulation = LaunchSimulator.simulate(plan, durationsMs: file.durationsMs, cores: file.cores ?? 2,
                                                      failing: file.failing)
            #expect(simulation.entries.allSatisfy { $0.state.isSettled })
        }
        #expect(parsed > 0)
    }
}
