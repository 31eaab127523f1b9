import Foundation
import VigilCore

/// A launch graph written as JSON, with a duration per task: the input of
/// `vigil launch simulate` and `vigil launch run` (format in `docs/launch.md`).
///
/// ```json
/// {"cores": 2,
///  "tasks": [{"id": "config", "durationMs": 12},
///            {"id": "db", "durationMs": 30, "lane": "serial:storage", "dependencies": ["config"]},
///            {"id": "feed", "durationMs": 80, "work": "await", "dependencies": ["db"]},
///            {"id": "window", "durationMs": 15, "lane": "main", "priority": 10}]}
/// ```
///
/// Parsing is strict: unknown fields are errors (a misspelt `dependencies` must not silently
/// drop an edge), and every error names the field's path, e.g. `tasks[3].lane`.
public struct LaunchGraphFile: Hashable, Sendable {
    /// What a task's duration is spent on, which decides whether it holds a core.
    public enum Work: String, Hashable, Sendable, CaseIterable {
        /// CPU-bound synchronous work (holds a core).
        case compute
        /// Synchronous work that blocks, e.g. on file I/O (holds a core's slot, uses no CPU).
        case block
        /// `async` work that awaits (holds no core).
        case await
    }

    /// One task of the file.
    public struct Task: Hashable, Sendable {
        /// Its shape; ``LaunchTaskSpec/suspends`` is true exactly for ``Work/await``.
        public var spec: LaunchTaskSpec
        /// How long it takes, in ms.
        public var durationMs: Double
        /// What the duration is spent on.
        public var work: Work
        /// Whether it fails at the end of its duration (to try out failure handling).
        public var fails: Bool

        /// A task; `spec.suspends` is set from `work`.
        public init(spec: LaunchTaskSpec, durationMs: Double, work: Work = .compute, fails: Bool = false) {
            var spec = spec
            spec.suspends = work == .await
            self.spec = spec
            self.durationMs = durationMs
            self.work = work
            self.fails = fails
        }
    }

    /// Largest accepted file, in bytes.
    public static let maxBytes = 8 << 20
    /// Most tasks accepted in one file.
    public static let maxTasks = 5000
    /// Longest accepted duration, timeout or estimate, in ms (one hour).
    public static let maxMilliseconds = 3_600_000.0

    /// Cores to simulate when the command line does not say.
    public var cores: Int?
    /// The tasks, in file order (their registration order).
    public var tasks: [Task]

    /// A graph file's contents.
    public init(cores: Int? = nil, tasks: [Task]) {
        self.cores = cores
        self.tasks = tasks
    }

    /// Parses a graph file.
    ///
    /// - Throws: ``LaunchGraphFileError`` naming the field and what is wrong with it. Graph
    ///   problems (cycles, missing dependencies) are reported by ``plan()``.
    public static func parse(_ data: Data) throws(LaunchGraphFileError) -> LaunchGraphFile {
        guard data.count <= maxBytes else {
            throw LaunchGraphFileError(path: "the document", message: "the file is larger than \(maxBytes) bytes")
        }
        do {
            let body = try JSONDecoder().decode(FileBody.self, from: data)
            return LaunchGraphFile(cores: body.cores, tasks: body.tasks)
        } catch let error as LaunchGraphFileError {
            throw error
        } catch let error as DecodingError {
            let described = EventJSON.describe(error)
            if let colon = described.range(of: ": ") {
                throw LaunchGraphFileError(path: String(described[..<colon.lowerBound]),
                                           message: String(described[colon.upperBound...]))
            }
            throw LaunchGraphFileError(path: "the document", message: described)
        } catch {
            throw LaunchGraphFileError(path: "the document", message: String(describing: error))
        }
    }

    /// The validated plan of the file's tasks.
    public func plan() throws(LaunchGraphError) -> LaunchPlan {
        try LaunchPlan(tasks.map(\.spec))
    }

    /// Each task's duration, in plan order.
    public var durationsMs: [Double] { tasks.map(\.durationMs) }

    /// Indices of the tasks marked `fails`.
    public var failing: Set<Int> { Set(tasks.indices.filter { tasks[$0].fails }) }

    /// The file as pretty-printed JSON, in the form ``parse(_:)`` reads; fields at their
    /// default value are left out.
    public func encoded() -> Data {
        var root: [String: Any] = [:]
        if let cores { root["cores"] = cores }
        root["tasks"] = tasks.map { task -> [String: Any] in
            var object: [String: Any] = ["id": task.spec.id, "durationMs": task.durationMs]
            if !task.spec.dependencies.isEmpty { object["dependencies"] = task.spec.dependencies }
            if task.spec.lane != .concurrent { object["lane"] = task.spec.lane.description }
            if task.spec.phase != .beforeFirstFrame { object["phase"] = task.spec.phase.rawValue }
            if task.spec.priority != 0 { object["priority"] = task.spec.priority }
            if let timeout = task.spec.timeoutMs { object["timeoutMs"] = timeout }
            if let estimate = task.spec.estimatedMs { object["estimatedMs"] = estimate }
            if task.work != .compute { object["work"] = task.work.rawValue }
            if task.fails { object["fails"] = true }
            return object
        }
        return (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    }
}

// MARK: - Strict decoding

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

private func path(_ codingPath: [any CodingKey], _ key: String? = nil) -> String {
    var text = ""
    for component in codingPath {
        if let index = component.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + component.stringValue }
    }
    if let key { text += (text.isEmpty ? "" : ".") + key }
    return text.isEmpty ? "the document" : text
}

private func rejectUnknownKeys(_ container: KeyedDecodingContainer<AnyKey>, allowed: Set<String>) throws {
    let unknown = container.allKeys.map(\.stringValue).filter { !allowed.contains($0) }.sorted()
    guard let first = unknown.first else { return }
    throw LaunchGraphFileError(path: path(container.codingPath, first),
                               message: "unknown field (expected one of: \(allowed.sorted().joined(separator: ", ")))")
}

private func milliseconds(_ container: KeyedDecodingContainer<AnyKey>, _ key: String,
                          allowZero: Bool) throws -> Double? {
    guard let value = try container.decodeIfPresent(Double.self, forKey: AnyKey(key)) else { return nil }
    guard value.isFinite, allowZero ? value >= 0 : value > 0, value <= LaunchGraphFile.maxMilliseconds else {
        throw LaunchGraphFileError(path: path(container.codingPath, key),
                                   message: "\(value) is not a duration in \(allowZero ? "0" : "(0")…"
                                       + "\(Int(LaunchGraphFile.maxMilliseconds))] ms")
    }
    return value
}

private struct FileBody: Decodable {
    var cores: Int?
    var tasks: [LaunchGraphFile.Task]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        try rejectUnknownKeys(container, allowed: ["cores", "tasks"])
        cores = try container.decodeIfPresent(Int.self, forKey: AnyKey("cores"))
        if let cores, !(1...1024).contains(cores) {
            throw LaunchGraphFileError(path: "cores", message: "\(cores) is not in 1…1024")
        }
        var list = try container.nestedUnkeyedContainer(forKey: AnyKey("tasks"))
        if let count = list.count, count > LaunchGraphFile.maxTasks {
            throw LaunchGraphFileError(path: "tasks", message: "\(count) tasks; at most \(LaunchGraphFile.maxTasks)")
        }
        var tasks: [LaunchGraphFile.Task] = []
        while !list.isAtEnd {
            tasks.append(try list.decode(TaskBody.self).task)
        }
        self.tasks = tasks
    }
}

private struct TaskBody: Decodable {
    var task: LaunchGraphFile.Task

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        try rejectUnknownKeys(c, allowed: ["id", "durationMs", "dependencies", "lane", "phase", "priority",
                                           "timeoutMs", "estimatedMs", "work", "fails"])
        let id = try c.decode(String.self, forKey: AnyKey("id"))
        guard let duration = try milliseconds(c, "durationMs", allowZero: true) else {
            throw LaunchGraphFileError(path: path(c.codingPath, "durationMs"), message: "missing required field")
        }
        let dependencies = try c.decodeIfPresent([String].self, forKey: AnyKey("dependencies")) ?? []
        var lane = LaunchLane.concurrent
        if let text = try c.decodeIfPresent(String.self, forKey: AnyKey("lane")) {
            guard let parsed = LaunchLane(parsing: text) else {
                throw LaunchGraphFileError(path: path(c.codingPath, "lane"),
                                           message: "\"\(text.prefix(40))\" is not main, concurrent or serial:NAME")
            }
            lane = parsed
        }
        var phase = LaunchPhase.beforeFirstFrame
        if let text = try c.decodeIfPresent(String.self, forKey: AnyKey("phase")) {
            guard let parsed = LaunchPhase(rawValue: text) else {
                throw LaunchGraphFileError(path: path(c.codingPath, "phase"),
                                           message: "\"\(text.prefix(40))\" is not one of "
                                               + LaunchPhase.allCases.map(\.rawValue).joined(separator: ", "))
            }
            phase = parsed
        }
        let priority = try c.decodeIfPresent(Int.self, forKey: AnyKey("priority")) ?? 0
        guard (-1_000_000...1_000_000).contains(priority) else {
            throw LaunchGraphFileError(path: path(c.codingPath, "priority"), message: "\(priority) is not in ±1000000")
        }
        var work = LaunchGraphFile.Work.compute
        if let text = try c.decodeIfPresent(String.self, forKey: AnyKey("work")) {
            guard let parsed = LaunchGraphFile.Work(rawValue: text) else {
                throw LaunchGraphFileError(path: path(c.codingPath, "work"),
                                           message: "\"\(text.prefix(40))\" is not compute, block or await")
            }
            work = parsed
        }
        let spec = LaunchTaskSpec(id: id, dependencies: dependencies, lane: lane, phase: phase, priority: priority,
                                  timeoutMs: try milliseconds(c, "timeoutMs", allowZero: false),
                                  estimatedMs: try milliseconds(c, "estimatedMs", allowZero: true))
        task = LaunchGraphFile.Task(spec: spec, durationMs: duration, work: work,
                                    fails: try c.decodeIfPresent(Bool.self, forKey: AnyKey("fails")) ?? false)
    }
}
