import Foundation
import VigilBLE
import VigilBLESimulation
import VigilCommandLine

/// `vigil-bench ble`: window mode against stop-and-wait on the simulated link, at the issue's
/// two parameter sets and two loss rates, each measured against the theoretical streaming
/// bound; plus the real time a 10 MB transfer takes to simulate. Writes one JSON document.
enum BLEBenchmark: Command {
    static let name = "ble"
    static let summary = "BLE transfer goodput vs the radio's bound, window vs stop-and-wait (simulated, virtual time)"
    static let usage = """
        usage: vigil-bench ble [--output bench-results/ble.json] [--bytes N] [--legacy-bytes N] [--seed S]

        Runs window and stop-and-wait transfers at MTU 247 / 2M / 15 ms / 5 packets per event and at
        MTU 23 / 1M / 30 ms / 5 packets per event, each at 0 % and 2 % loss, in the same run, and
        reports goodput, the streaming bound, their ratio, the window/stop-and-wait ratio and the
        goals. --bytes sizes the MTU-247 transfers (default 2 MB), --legacy-bytes the MTU-23 ones.
        """

    private struct Row: Encodable {
        var mode: String
        var loss: Double
        var bytes: Int
        var goodputBytesPerSecond: Double
        var ratio: Double
        var retransmissions: Int
        var verified: Bool
        var virtualSeconds: Double
        var realSeconds: Double
    }

    private struct Table: Encodable {
        var mtu: Int
        var phy: String
        var dataLength: Int
        var intervalMs: Double
        var packetsPerEvent: Int
        var boundBytesPerSecond: Double
        var rows: [Row]
        var windowOverStopAndWait: [String: Double]
    }

    private struct Goal: Encodable {
        var name: String
        var measured: Double
        var goal: Double
        var met: Bool
    }

    private struct Document: Encodable {
        var suite = "ble"
        var description = "Reliable transfer over the simulated BLE link (virtual time, seeded); goodput measured from START to the peer's verified DONE, bound = N × (MTU − 3) / (f × interval)."
        var model: [String: Double]
        var tables: [Table]
        var peerLatencySensitivity: [Row]
        var goals: [Goal]
        var tenMegabyteRealSeconds: Double
        var tenMegabyteCPUSeconds: Double
    }

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["output", "bytes", "legacy-bytes", "seed"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let output = arguments.value("output") ?? "bench-results/ble.json"
        let bytes: Int = try arguments.number("bytes", default: 2_000_000)
        let legacyBytes: Int = try arguments.number("legacy-bytes", default: 150_000)
        let seed: UInt64 = try arguments.number("seed", default: 1)
        let simulation = SimulationParameters()

        func measure(_ link: LinkParameters, mode: TransferMode, loss: Double, bytes: Int, peerLatencyMs: Double? = nil) -> Row {
            var parameters = simulation
            parameters.link = link
            if let peerLatencyMs { parameters.peripheralLatencyMs = peerLatencyMs }
            let outcome = TransferSimulation(parameters: parameters, faults: LinkFaults(loss: loss),
                                             transfer: TransferConfiguration(mode: mode), bytes: bytes, seed: seed).run()
            if case .failure(let error)? = outcome.result {
                CommandDispatcher.writeStandardError("ble bench: \(mode) at \(link), loss \(loss): \(error)")
            }
            return Row(mode: mode.description, loss: loss, bytes: bytes, goodputBytesPerSecond: outcome.goodputBytesPerSecond,
                       ratio: outcome.ratio, retransmissions: outcome.retransmissions, verified: outcome.verified,
                       virtualSeconds: outcome.virtualSeconds, realSeconds: outcome.realSeconds)
        }

        func table(_ link: LinkParameters, bytes: Int) -> Table {
            var rows: [Row] = []
            for loss in [0.0, 0.02] {
                for mode in [TransferMode.window, .stopAndWait] {
                    let row = measure(link, mode: mode, loss: loss, bytes: bytes)
                    CommandDispatcher.writeStandardOutput(String(format: "MTU %3d %@ %5.1f ms  %-8@ loss %4.1f%%  goodput %8.0f B/s  ratio %.3f  retransmissions %5d  verified %@\n",
                                                                 link.attMTU, link.phy.rawValue, link.connectionIntervalMs, row.mode, loss * 100,
                                                                 row.goodputBytesPerSecond, row.ratio, row.retransmissions, row.verified ? "yes" : "NO"))
                    rows.append(row)
                }
            }
            var speedups: [String: Double] = [:]
            for loss in [0.0, 0.02] {
                let window = rows.first { $0.mode == "window" && $0.loss == loss }?.goodputBytesPerSecond ?? 0
                let stopAndWait = rows.first { $0.mode == "stopwait" && $0.loss == loss }?.goodputBytesPerSecond ?? 0
                speedups["loss\(Int(loss * 100))"] = stopAndWait > 0 ? window / stopAndWait : 0
            }
            return Table(mtu: link.attMTU, phy: link.phy.rawValue, dataLength: link.dataLength, intervalMs: link.connectionIntervalMs,
                         packetsPerEvent: link.packetsPerEvent, boundBytesPerSecond: StreamingBound(link).bytesPerSecond, rows: rows,
                         windowOverStopAndWait: speedups)
        }

        let best = LinkParameters(phy: .twoM, attMTU: 247, connectionIntervalMs: 15, packetsPerEvent: 5)
        let legacy = LinkParameters(phy: .oneM, attMTU: 23, connectionIntervalMs: 30, packetsPerEvent: 5)
        let bestTable = table(best, bytes: bytes)
        let legacyTable = table(legacy, bytes: legacyBytes)

        // How a slower peer (firmware that needs time to store each chunk before it answers)
        // affects each mode: window mode hides the latency, stop-and-wait pays it per chunk.
        var sensitivity: [Row] = []
        for latency in [1.0, 5.0, 20.0] {
            for mode in [TransferMode.window, .stopAndWait] {
                var row = measure(best, mode: mode, loss: 0, bytes: 500_000, peerLatencyMs: latency)
                row.mode += " peer \(Int(latency)) ms"
                sensitivity.append(row)
            }
        }

        let ten = TransferSimulation(parameters: SimulationParameters(link: best), bytes: 10_000_000, seed: seed).run()
        CommandDispatcher.writeStandardOutput(String(format: "10 MB window transfer: %.1f s virtual, simulated in %.3f s real (%.3f s CPU), verified %@\n",
                                                     ten.virtualSeconds, ten.realSeconds, ten.cpuSeconds, ten.verified ? "yes" : "NO"))

        func ratio(_ table: Table, _ mode: String, _ loss: Double) -> Double { table.rows.first { $0.mode == mode && $0.loss == loss }?.ratio ?? 0 }
        let goals = [
            Goal(name: "window goodput / bound at MTU 247, 2M, 15 ms, 5 packets/event, 0% loss", measured: ratio(bestTable, "window", 0), goal: 0.90,
                 met: ratio(bestTable, "window", 0) >= 0.90),
            Goal(name: "window goodput / bound at MTU 247, 2M, 15 ms, 5 packets/event, 2% loss", measured: ratio(bestTable, "window", 0.02), goal: 0.75,
                 met: ratio(bestTable, "window", 0.02) >= 0.75),
            Goal(name: "window / stop-and-wait goodput at MTU 247, 2M, 15 ms, 5 packets/event, 0% loss",
                 measured: bestTable.windowOverStopAndWait["loss0"] ?? 0, goal: 10, met: (bestTable.windowOverStopAndWait["loss0"] ?? 0) >= 10),
            Goal(name: "window / stop-and-wait goodput at MTU 247, 2M, 15 ms, 5 packets/event, 2% loss",
                 measured: bestTable.windowOverStopAndWait["loss2"] ?? 0, goal: 10, met: (bestTable.windowOverStopAndWait["loss2"] ?? 0) >= 10),
            Goal(name: "real seconds to simulate a verified 10 MB window transfer (quiet machine; CPU seconds in tenMegabyteCPUSeconds)",
                 measured: ten.realSeconds, goal: 1.0, met: ten.verified && ten.realSeconds < 1.0),
        ]
        for goal in goals {
            CommandDispatcher.writeStandardOutput(String(format: "goal %@: %@ (measured %.3f, goal %.2f)\n", goal.met ? "met" : "NOT MET", goal.name, goal.measured, goal.goal))
        }
        let document = Document(
            model: ["centralLatencyMs": simulation.centralLatencyMs, "peripheralLatencyMs": simulation.peripheralLatencyMs,
                    "writeBufferCapacity": Double(simulation.writeBufferCapacity), "requestedWindow": 64, "seed": Double(seed)],
            tables: [bestTable, legacyTable], peerLatencySensitivity: sensitivity, goals: goals, tenMegabyteRealSeconds: ten.realSeconds,
            tenMegabyteCPUSeconds: ten.cpuSeconds)
        try ResultFile.write(document, to: output)
        CommandDispatcher.writeStandardOutput("wrote \(output)\n")
        let allVerified = (bestTable.rows + legacyTable.rows + sensitivity).allSatisfy(\.verified) && ten.verified
        return allVerified ? 0 : 1
    }
}
