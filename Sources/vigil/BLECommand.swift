import Foundation
import VigilBLE
import VigilBLESimulation
import VigilCommandLine

/// `vigil ble bench`: one transfer on the simulated link, measured against the theoretical
/// streaming bound of the same radio parameters, or (`--stack bumble`) over VigilBLEHost to the
/// Bumble peer; `vigil ble scan` and `vigil ble terminal` on a real host stack.
enum BLECommand: Command {
    static let name = "ble"
    static let summary = "BLE link tools: `ble bench` measures a transfer (simulated, or over Bumble); `ble scan`, `ble terminal` on a controller"
    static let usage = """
        usage: vigil ble bench [--mtu 247] [--phy 2M] [--interval-ms 15] [--packets-per-event 5]
                               [--loss 0.02] [--mode window|stopwait] [--bytes N] [--seed S] [--json]
                               [--data-length DL] [--window W] [--central-latency-ms MS] [--peer-latency-ms MS]
                               [--write-buffer N] [--attack flip|replay|reorder|flip-answer]

        Simulates one transfer in virtual time (connect, START, chunks, ACKs, SHA-256 check at the
        peer) and prints the goodput, the theoretical streaming bound for the parameters, their
        ratio, the retransmissions and whether the peer's hash verified and the bytes match.
        --loss drops that fraction of application values in both directions. --data-length
        defaults to MTU + 4 (at most 251). With --json: one object with the keys
        goodputBytesPerSecond, boundBytesPerSecond, ratio, retransmissions, verified.
        Exit status 1 when the transfer failed.

        --attack also runs a payment-terminal session with authenticated commands on the same
        radio, with a man in the middle: flip (changes a byte of the card-transaction command
        and fixes the checksum), replay (sends that command again later) or reorder (holds the
        IC-parameters command back until the transaction, sent right after it, overtook it);
        flip-answer changes a byte of the terminal's answer to the transaction instead. It adds
        attack, attackRejected (true when every forged command was refused by the terminal and
        none acted on; for flip-answer, when the phone refused the forged answer), forgedCommands,
        refusedCommands, acceptedCommands, forgedAnswers, refusedAnswers, sessionCompleted and
        sessionVirtualSeconds; exit status 1 also when the attack was not rejected.

               vigil ble bench --stack bumble [--transport tcp:HOST:PORT] [--mode window|stopwait] [--bytes N]
                               [--window W] [--seed S] [--bumble-python PATH] [--bumble-peer PATH] [--json]

        Runs the transfer over the real host stack (VigilBLEHost, HCI H4 over TCP) to the Bumble
        peer of Tests/BumblePeer, which it starts with two virtual controllers unless --transport
        names a controller whose peer already advertises the transfer service (run from a checkout
        after scripts/bootstrap --ble), and prints its goodput beside the simulator's for the same
        mode and size. Bumble's link has no radio timing: the stack figure is a correctness and
        overhead figure, not a radio's throughput.

               vigil ble scan --transport tcp:HOST:PORT|unix:PATH|hci:N [--seconds 5] [--json]

        Lists the devices advertising, with name, services and the terminal family that claims them.

               vigil ble terminal --transport tcp:HOST:PORT|unix:PATH|hci:N [--seconds 30] [--json]

        Connects to the first terminal of a known family and runs the connected sequence (open,
        device info, serial number, trace number; the server check approves without a key update).
        hci:N opens Linux's HCI user channel (the adapter must be down; needs CAP_NET_ADMIN).
        """

    private static let valued: Set<String> = [
        "mtu", "phy", "interval-ms", "packets-per-event", "loss", "mode", "bytes", "seed", "data-length", "window",
        "central-latency-ms", "peer-latency-ms", "write-buffer", "attack", "stack", "transport", "bumble-python", "bumble-peer",
    ]
    private static let stackValued: Set<String> = ["transport", "seconds"]

    static func run(_ words: [String]) throws -> Int32 {
        switch words.first {
        case "bench": break
        case "scan", "terminal":
            let arguments = try Arguments(Array(words.dropFirst()), valued: stackValued)
            let unknown = arguments.unknown(allowedFlags: ["json"], allowedValues: stackValued)
            guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
            guard arguments.positional.isEmpty else { throw UsageError("unexpected argument \"\(arguments.positional[0])\"") }
            #if canImport(Glibc)
            return words.first == "scan" ? try BLEStackCommands.scan(arguments) : try BLEStackCommands.terminal(arguments)
            #else
            throw UsageError("`vigil ble \(words[0])` needs Linux (VigilBLEHost's sockets)")
            #endif
        default: throw UsageError("expected the subcommand `bench`, `scan` or `terminal`")
        }
        let arguments = try Arguments(Array(words.dropFirst()), valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["json"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument \"\(arguments.positional[0])\"") }

        let mtu: Int = try arguments.number("mtu", default: 247)
        guard let phy = LinkParameters.PHY(name: arguments.value("phy") ?? "2M") else { throw UsageError("--phy must be 1M or 2M") }
        let interval: Double = try arguments.number("interval-ms", default: 15)
        let packets: Int = try arguments.number("packets-per-event", default: 5)
        let dataLength: Int = try arguments.number("data-length", default: min(251, mtu + 4))
        let loss: Double = try arguments.number("loss", default: 0)
        guard (0...0.5).contains(loss) else { throw UsageError("--loss must be between 0 and 0.5") }
        guard let mode = TransferMode(name: arguments.value("mode") ?? "window") else { throw UsageError("--mode must be window or stopwait") }
        let bytes: Int = try arguments.number("bytes", default: 1 << 20)
        guard bytes >= 0, bytes <= 1 << 30 else { throw UsageError("--bytes must be between 0 and 1 GiB") }
        let seed: UInt64 = try arguments.number("seed", default: 1)
        let window: Int = try arguments.number("window", default: 64)
        let centralLatency: Double = try arguments.number("central-latency-ms", default: 1)
        let peerLatency: Double = try arguments.number("peer-latency-ms", default: 1)
        let writeBuffer: Int = try arguments.number("write-buffer", default: 10)
        var attack: ManInTheMiddle.Attack?
        if let name = arguments.value("attack") {
            guard let chosen = ManInTheMiddle.Attack(rawValue: name) else { throw UsageError("--attack must be flip, replay, reorder or flip-answer") }
            attack = chosen
        }
        switch arguments.value("stack") ?? "simulator" {
        case "simulator": break
        case "bumble":
            guard attack == nil else { throw UsageError("--attack runs in the simulator only, not with --stack bumble") }
            #if canImport(Glibc)
            return try BLEStackCommands.benchOnBumble(arguments, mode: mode, bytes: bytes, window: window, seed: seed)
            #else
            throw UsageError("--stack bumble needs Linux (VigilBLEHost's sockets)")
            #endif
        case let other: throw UsageError("--stack must be simulator or bumble, not \(other)")
        }

        let link: LinkParameters
        do {
            link = try LinkParameters(phy: phy, dataLength: dataLength, attMTU: mtu, connectionIntervalMs: interval,
                                      packetsPerEvent: packets).validated()
        } catch {
            throw UsageError(error.description)
        }
        let simulation = TransferSimulation(
            parameters: SimulationParameters(link: link, centralLatencyMs: centralLatency, peripheralLatencyMs: peerLatency,
                                             writeBufferCapacity: writeBuffer),
            faults: LinkFaults(loss: loss),
            transfer: TransferConfiguration(mode: mode, requestedWindow: window),
            bytes: bytes, seed: seed)
        let outcome = simulation.run()
        let session = attack.map { attack in
            TerminalSessionSimulation(parameters: simulation.parameters, attack: attack, seed: seed).run()
        }

        if arguments.flag("json") {
            var object: [String: Any] = [
                "goodputBytesPerSecond": rounded(outcome.goodputBytesPerSecond, 1),
                "boundBytesPerSecond": rounded(outcome.boundBytesPerSecond, 1),
                "ratio": rounded(outcome.ratio, 4),
                "retransmissions": outcome.retransmissions,
                "verified": outcome.verified,
            ]
            if let attack, let session {
                object["attack"] = attack.rawValue
                object["attackRejected"] = session.attackRejected
                object["forgedCommands"] = session.forgedCount
                object["refusedCommands"] = session.refusedCount
                object["acceptedCommands"] = session.terminalLog.count - session.refusedCount
                object["forgedAnswers"] = session.forgedAnswers
                object["refusedAnswers"] = session.refusedAnswers
                object["sessionCompleted"] = session.completed
                object["sessionVirtualSeconds"] = rounded(session.virtualSeconds, 3)
            }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            CommandDispatcher.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            let bound = StreamingBound(link)
            var text = "mode \(mode), \(bytes) bytes, \(link), loss \(percent(loss))\n"
            text += "goodput          \(Int(outcome.goodputBytesPerSecond.rounded())) B/s\n"
            text += "bound            \(Int(outcome.boundBytesPerSecond.rounded())) B/s "
            text += "(\(bound.packetsPerEvent) packets/event × \(link.maxWriteValueLength) B ÷ \(bound.fragmentsPerWrite) fragments/write ÷ \(interval) ms)\n"
            text += "ratio            \(String(format: "%.3f", outcome.ratio))\n"
            text += "retransmissions  \(outcome.retransmissions)\n"
            text += "verified         \(outcome.verified ? "yes (SHA-256 checked by the peer, bytes compared)" : "no")\n"
            text += "virtual time     \(String(format: "%.3f", outcome.virtualSeconds)) s (simulated in \(String(format: "%.3f", outcome.realSeconds)) s)\n"
            let stats = outcome.statistics
            text += "radio            \(stats.connectionEvents) connection events, \(stats.linkPacketsFromCentral) packets out, "
            text += "\(stats.linkPacketsFromPeripheral) packets in, \(stats.valuesLost) values lost, "
            text += "\(stats.writeCommandsIntoFullBuffer) writes into a full buffer\n"
            if let attack, let session {
                text += "attack           \(attack.rawValue): \(session.forgedCount) commands forged, "
                text += "\(session.refusedCount) refused by the terminal, \(session.terminalLog.count - session.refusedCount) accepted; "
                text += "\(session.forgedAnswers) answers forged, \(session.refusedAnswers) refused by the phone\n"
                text += "attack rejected  \(session.attackRejected ? "yes (every forged frame refused, none acted on)" : "NO")\n"
                text += "session          \(session.completed ? "completed" : "did not complete (the attacked command failed)")"
                text += " in \(String(format: "%.3f", session.virtualSeconds)) s virtual\n"
            }
            CommandDispatcher.writeStandardOutput(text)
        }
        if case .failure(let error)? = outcome.result {
            CommandDispatcher.writeStandardError("vigil ble bench: transfer failed: \(error)")
            return 1
        }
        if let session, !session.attackRejected {
            CommandDispatcher.writeStandardError("vigil ble bench: the \(attack?.rawValue ?? "") attack was not rejected")
            return 1
        }
        return outcome.verified ? 0 : 1
    }

    private static func rounded(_ value: Double, _ places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }

    private static func percent(_ fraction: Double) -> String { String(format: "%.1f%%", fraction * 100) }
}
