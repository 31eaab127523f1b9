import Foundation
import VigilCommandLine
import VigilCore
import VigilServer
#if canImport(Glibc)
import Glibc
#endif

/// The A/B skeleton of the benchmarks that compare ingest latency without and with something
/// running beside it (`vigil-bench scrape`, `vigil-bench retention`): their common options, one
/// bulk-loaded project per database, and the phase loop — `rounds` pairs of a phase without,
/// then one with, the ``IngestTreatment``, while `clients` post the server benchmark's gzip
/// batches of 100 to a real `vigil serve` — and the result file both write.
///
/// Threads: a phase runs one thread per client and one for the treatment; the caller waits.
/// Memory: every client's prepared bodies for all phases (about 40 per client-second).
struct IngestComparison {
    /// The options every comparison takes, parsed; `arguments` keeps the benchmark's own.
    struct Options {
        var arguments: Arguments
        var vigil: String
        var output: String
        var work: URL
        var eventCount: Int
        var seconds: Double
        var rounds: Int
        var clients: Int
        var locations: [DatabaseLocation]
    }

    /// One phase's load: how long it ran, every request's latency (ms), the failed requests and
    /// the events stored.
    struct PhaseLoad {
        var seconds: Double
        var latencies: [Double]
        var failures: Int
        var events: Int

        var eventsPerSecond: Double { Double(events) / seconds }
    }

    /// One phase: its round, whether the treatment ran, its load and what the treatment measured.
    struct PhaseRun<Measure> {
        var round: Int
        var treated: Bool
        var load: PhaseLoad
        var measure: Measure
    }

    /// Every phase of one database, and the latencies (ms) of the untreated and treated phases.
    struct Series<Measure> {
        var runs: [PhaseRun<Measure>] = []
        var without: [Double] = []
        var with: [Double] = []

        var p50MsWithout: Double { IngestComparison.percentile(without, 0.5) }
        var p99MsWithout: Double { IngestComparison.percentile(without, 0.99) }
        var p50MsWith: Double { IngestComparison.percentile(with, 0.5) }
        var p99MsWith: Double { IngestComparison.percentile(with, 0.99) }
        /// p99 with over p99 without: the goal is at most 1.10.
        var p99Ratio: Double { p99MsWith / max(p99MsWithout, 0.001) }
    }

    /// A freshly loaded project: its ingest key, how long loading took and the events then stored.
    struct SeededProject {
        var key: String
        var seedSeconds: Double
        var storedBefore: Int
    }

    /// The suite's name (`scrape`, `retention`): log prefix, work directory and SQLite file name.
    let suite: String
    let options: Options
    let events: ServerBenchEvents
    let bodies: PreparedBodies

    /// Options every comparison takes; a benchmark adds its own valued options and flags.
    static let commonValued: Set<String> = ["postgres", "events", "seconds", "rounds", "clients", "vigil", "output", "work-dir"]

    /// Parses the common options (`--events` defaulting to `defaultEvents`) and prepares the
    /// bodies; creates the work directory, which ``removeWorkDirectory()`` removes.
    init(suite: String, words: [String], defaultEvents: Int, extraValued: Set<String> = []) throws {
        let valued = Self.commonValued.union(extraValued)
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["postgres-only"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let eventCount = try arguments.number("events", default: defaultEvents)
        let seconds = try arguments.number("seconds", default: 10.0)
        let rounds = try arguments.number("rounds", default: 2)
        let clients = try arguments.number("clients", default: 8)
        guard eventCount >= 0, seconds > 0, rounds >= 1, clients >= 1, clients <= 64 else {
            throw UsageError("--events ≥ 0, --seconds > 0, --rounds ≥ 1, --clients 1…64")
        }
        let vigil = arguments.value("vigil")
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("vigil").path
        guard FileManager.default.isExecutableFile(atPath: vigil) else { throw UsageError("no vigil binary at \(vigil); pass --vigil") }
        let work = URL(fileURLWithPath: arguments.value("work-dir") ?? NSTemporaryDirectory())
            .appendingPathComponent("vigil-bench-\(suite)-\(getpid())")
        var locations: [DatabaseLocation] = []
        if !arguments.flag("postgres-only") { locations.append(.sqlite(path: work.appendingPathComponent("\(suite).sqlite").path)) }
        if let url = arguments.value("postgres") { locations.append(.postgres(url: url)) }
        guard !locations.isEmpty else { throw UsageError("--postgres-only needs --postgres URL") }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        options = Options(arguments: arguments, vigil: vigil, output: arguments.value("output") ?? "bench-results/\(suite).json",
                          work: work, eventCount: eventCount, seconds: seconds, rounds: rounds, clients: clients, locations: locations)
        self.suite = suite
        events = try ServerBenchEvents(batchSize: 100, seed: 42)
        let perClient = Int((seconds * Double(rounds) * 2 * 40).rounded(.up))
        bodies = PreparedBodies(events: events, clients: clients, perClient: perClient, spacing: 1.0 / 40, gzip: true)
    }

    /// Removes the work directory (the SQLite database and the spool with it).
    func removeWorkDirectory() { try? FileManager.default.removeItem(at: options.work) }

    // MARK: The result file

    /// Runs `side` for each database and writes the result file: `suite`, `config` (the common
    /// options, batch, gzip and cores, plus `config`), `sides` by database, `goals` (`goal`: 1.10)
    /// and `met` (`<database>P99Within10Percent`).
    func writeResult(config: [String: Any], goal: String,
                     side: (DatabaseLocation) throws -> (database: String, result: any Encodable, p99Ratio: Double)) throws {
        var sides: [String: Any] = [:]
        var met: [String: Bool] = [:]
        for location in options.locations {
            let outcome = try side(location)
            sides[outcome.database] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(outcome.result))
            met["\(outcome.database)P99Within10Percent"] = outcome.p99Ratio <= 1.10
        }
        let common: [String: Any] = ["events": options.eventCount, "seconds": options.seconds, "rounds": options.rounds,
                                     "clients": options.clients, "batch": 100, "gzip": true,
                                     "cores": ProcessInfo.processInfo.activeProcessorCount]
        let result: [String: Any] = [
            "suite": suite,
            "config": common.merging(config) { _, own in own },
            "sides": sides,
            "goals": [goal: 1.10],
            "met": met,
        ]
        let data = try JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
        let output = URL(fileURLWithPath: options.output)
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: output)
        ServerBenchmark.log("\(suite): wrote \(options.output)")
    }

    // MARK: Seeding

    /// A new project on `location`, loaded with `options.eventCount` processed network events
    /// (``seed(_:projectID:count:olderThan:)``); `inspect` sees the store before it is closed.
    func seedProject(_ location: DatabaseLocation, olderThan: Double = 0,
                     inspect: (ServerStore) throws -> Void = { _ in }) throws -> SeededProject {
        let store = try ServerStore.open(location, connections: 2)
        defer { store.database.close() }
        let (project, key) = try store.createProject(name: "\(suite)-\(UUID().uuidString.prefix(8))")
        let started = Date()
        try Self.seed(store, projectID: project.id, count: options.eventCount, olderThan: olderThan)
        let seedSeconds = Date().timeIntervalSince(started)
        try inspect(store)
        return SeededProject(key: key, seedSeconds: seedSeconds, storedBefore: try Self.storedEvents(store))
    }

    /// Every event the store holds, whatever its state.
    static func storedEvents(_ store: ServerStore) throws -> Int {
        let counts = try store.eventCounts()
        return counts.pending + counts.processed + counts.reprocess
    }

    /// Bulk-loads `count` processed network events, 20,000 per transaction, one a second back
    /// from `olderThan` seconds ago (wrapping after 30 days).
    static func seed(_ store: ServerStore, projectID: Int64, count: Int, olderThan: Double = 0) throws {
        let now = Date()
        let sessions = (0..<500).map { _ in UUID().uuidString }
        let pages = ["HomeViewController", "CartViewController", "CheckoutViewController", "SearchViewController"]
        var made = 0
        while made < count {
            let chunk = min(20_000, count - made)
            let records = (0..<chunk).map { offset -> EventRecord in
                let index = made + offset
                let occurred = Int64((now.timeIntervalSince1970 - olderThan) * 1000) - Int64(index % 2_592_000) * 1000
                let payload = #"{"method":"GET","urlTemplate":"/products/:id","host":"api.example.com","status":200,"#
                    + #""bytesSent":312,"bytesReceived":\#(2048 + index % 4096),"total":\#(80 + index % 400)}"#
                return EventRecord(id: UUID().uuidString, type: "network", occurredAt: occurred, appID: "com.example.shop",
                                   appVersion: "3.\(index % 3).0", appBuild: "41\(index % 3)", os: "iOS", osVersion: "18.1",
                                   deviceModel: "iPhone14,2", page: pages[index % pages.count],
                                   sessionID: sessions[index % sessions.count], durationMs: Double(80 + index % 400),
                                   tagsJSON: "{}", payloadJSON: payload, imagesJSON: nil, contextJSON: nil)
            }
            try store.bulkLoadEvents(projectID: projectID, records, receivedAt: now, processed: true)
            made += chunk
        }
    }

    // MARK: Phases

    /// `options.rounds` pairs of phases against `location` (label `database` in the log), the
    /// first of each pair without `treatment`, the second with it; each phase `options.seconds`
    /// long. Servers come and go as ``IngestTreatment/serverPerPhase`` says.
    func runPhases<Treatment: IngestTreatment>(_ location: DatabaseLocation, database: String, key: String,
                                               treatment: Treatment) throws -> Series<Treatment.Measure> {
        let sequences = SequenceCounters(clients: options.clients)
        let shared = treatment.serverPerPhase ? nil : try startServer(location, extraArguments: treatment.serverArguments(treated: false))
        defer { shared?.stop() }
        var series = Series<Treatment.Measure>()
        for round in 0..<options.rounds {
            for treated in [false, true] {
                let own = shared == nil ? try startServer(location, extraArguments: treatment.serverArguments(treated: treated)) : nil
                defer { own?.stop() }
                guard let server = own ?? shared else { continue }
                let port = server.port
                var beside: (@Sendable (UInt64) -> Treatment.Measure)?
                if treated { beside = { deadline in treatment.beside(port: port, until: deadline) } }
                let load = try runLoad(port: port, key: key, sequences: sequences, beside: beside)
                let measure = try treatment.afterLoad(port: port, treated: treated, beside: load.beside)
                series.runs.append(PhaseRun(round: round, treated: treated, load: load.load, measure: measure))
                if treated { series.with += load.load.latencies } else { series.without += load.load.latencies }
                ServerBenchmark.log(String(format: "%@: %@: round %d %@ %@: %.0f events/s, p99 %.1f ms%@", suite, database, round + 1,
                                           treated ? "with" : "without", treatment.name, load.load.eventsPerSecond,
                                           Self.percentile(load.load.latencies, 0.99), treatment.describe(measure, treated: treated)))
            }
        }
        return series
    }

    /// A running `vigil serve` on a port of its own.
    final class Server {
        let port: UInt16
        private let process: Process

        init(port: UInt16, process: Process) {
            self.port = port
            self.process = process
        }

        /// Terminates the server and reaps it.
        func stop() {
            if process.isRunning { process.terminate() }
            var status: Int32 = 0
            waitpid(process.processIdentifier, &status, 0)
        }
    }

    /// Starts `vigil serve` on `location` (no rate limit, 8 threads, the spool in the work
    /// directory) and waits until it answers `/healthz`.
    func startServer(_ location: DatabaseLocation, extraArguments: [String]) throws -> Server {
        let port = try ServerBenchmark.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: options.vigil)
        process.arguments = ["serve", "--db", ServerBenchmark.dbArgument(location), "--port", String(port), "--admin-token", "bench",
                             "--rate-limit", "0", "--threads", "8", "--spool-dir", options.work.appendingPathComponent("spool").path]
            + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = Server(port: port, process: process)
        do {
            try ServerBenchmark.waitForHealth(port: port)
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// One phase's load: the clients post for `options.seconds`; `beside`, when given, runs on
    /// its own thread meanwhile, told the phase's deadline.
    func runLoad<Measure: Sendable>(port: UInt16, key: String, sequences: SequenceCounters,
                                    beside: (@Sendable (UInt64) -> Measure)?) throws -> (load: PhaseLoad, beside: Measure?) {
        let collected = Collected()
        let besideResult = Outcome<Measure>()
        let started = DispatchTime.now().uptimeNanoseconds
        let deadline = started + UInt64(options.seconds * 1e9)
        let group = DispatchGroup()
        let bodies = self.bodies
        let batchEvents = events.idOffsets.count
        for client in 0..<options.clients {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var latencies: [Double] = []
                var failures = 0
                var sent = 0
                guard let connection = try? ServerLoadClient(port: port) else { collected.add([], failures: 1, events: 0); return }
                let headers = [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json"), ("Content-Encoding", "gzip")]
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let body = bodies.body(client: client, sequence: sequences.next(client))
                    let begin = DispatchTime.now().uptimeNanoseconds
                    let answer = try? connection.send(method: "POST", path: "/api/v1/events", headers: headers, body: body)
                    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                    if answer?.status == 200 { sent += batchEvents } else { failures += 1 }
                }
                collected.add(latencies, failures: failures, events: sent)
            }
        }
        if let beside {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                besideResult.set(beside(deadline))
            }
        }
        group.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return (collected.load(seconds: seconds), besideResult.value)
    }

    /// The `q` quantile (nearest rank below) of `values`; 0 when empty.
    static func percentile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))]
    }

    /// Each client's next body number, kept across phases so that every batch is new.
    final class SequenceCounters: @unchecked Sendable {
        private let lock = NSLock()
        private var next: [Int]

        init(clients: Int) { next = Array(repeating: 0, count: clients) }

        func next(_ client: Int) -> Int {
            lock.lock(); defer { lock.unlock() }
            next[client] += 1
            return next[client]
        }
    }

    /// What the client threads of one phase measured.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var latencies: [Double] = []
        private var failures = 0
        private var events = 0

        func add(_ more: [Double], failures moreFailures: Int, events moreEvents: Int) {
            lock.lock(); defer { lock.unlock() }
            latencies += more
            failures += moreFailures
            events += moreEvents
        }

        func load(seconds: Double) -> PhaseLoad {
            lock.lock(); defer { lock.unlock() }
            return PhaseLoad(seconds: seconds, latencies: latencies, failures: failures, events: events)
        }
    }

    /// A value one thread sets and another reads after joining it.
    final class Outcome<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Value?

        init(_ initial: Value? = nil) { stored = initial }

        func set(_ value: Value) { lock.withLock { stored = value } }
        func update(_ change: (inout Value?) -> Void) { lock.withLock { change(&stored) } }
        var value: Value? { lock.withLock { stored } }
    }
}
