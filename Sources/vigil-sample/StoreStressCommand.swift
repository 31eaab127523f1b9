import Foundation
import VigilCommandLine
import VigilCore
import VigilStore

/// Test harness for the store's crash-consistency test: enqueues events into an
/// ``EventStore`` in a tight loop until it is killed, and reports on standard output which
/// events are known durable.
///
/// Output lines: `ready` once the store has recovered, then `durable <n>` after the critical
/// event `n` returned from `enqueue` (written and fsynced, and with it every event before
/// it), and `flushed <n>` after a `flush()` covering events up to `n` succeeded. Event `n`
/// has the id `00000000-0000-4000-8000-<base + n as 12 hex digits>`.
enum StoreStressCommand: Command {
    static let name = "store-stress"
    static let summary = "(test harness) enqueue events into a store until killed"
    static let usage = """
        usage: vigil-sample store-stress --dir DIR [--seed S] [--base N] [--count N]

          --dir DIR     store directory
          --seed S      varies event sizes and the crash/flush rhythm (default 1)
          --base N      number of the first event (default 0); ids must not repeat across runs
          --count N     stop after N events (default: run until killed)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, valued: ["dir", "seed", "base", "count"])
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: ["dir", "seed", "base", "count"])
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let directory = URL(fileURLWithPath: try arguments.required("dir"), isDirectory: true)
        let seed: UInt64 = try arguments.number("seed", default: 1)
        let base: Int = try arguments.number("base", default: 0)
        let count: Int = try arguments.number("count", default: Int.max)
        guard base >= 0, base < 1 << 40 else { throw UsageError("--base must be in 0..<2^40") }

        // A pending limit this large never drops, so "flushed n" really covers every event up
        // to n; the process is killed long before memory matters.
        let store = EventStore(directory: directory, configuration: StoreConfiguration(pendingLimit: 1 << 30))
        _ = store.statistics()
        report("ready")
        var generator = SeededGenerator(seed: seed)
        let session = UUID(uuidString: "5E55C0DE-0000-4000-8000-000000000000") ?? UUID()
        let app = AppInfo(id: "dev.vigil.sample", version: "1.0", build: "1")
        let device = DeviceInfo(model: "linux", os: "Linux", osVersion: "6", arch: "x86_64")
        var number = 0
        while number < count {
            let id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012llX", UInt64(base + number))) ?? UUID()
            let roll = generator.next() % 64
            if roll == 0 {
                let crash = CrashPayload(signal: "SIGSEGV", threads: [CrashThread(crashed: true, name: "main", frames: [Address(0x1000)])])
                let event = Event(id: id, time: Date(), session: session, app: app, device: device, payload: .crash(crash))
                if store.enqueue(event) { report("durable \(number)") }
            } else {
                let text = String(repeating: "x", count: Int(generator.next() % 600))
                let event = Event(id: id, time: Date(), session: session, app: app, device: device,
                                  payload: .log(LogPayload(level: .info, message: "event \(number) \(text)")))
                store.enqueue(event)
            }
            if roll == 1, store.flush() { report("flushed \(number)") }
            number += 1
        }
        store.close()
        return 0
    }

    private static func report(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
