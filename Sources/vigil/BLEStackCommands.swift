#if canImport(Glibc)
import Foundation
import VigilBLE
import VigilBLEHost
import VigilBLESimulation
import VigilCore
import VigilCommandLine

/// `vigil ble scan`, `vigil ble terminal` and `vigil ble bench --stack bumble`: VigilBLE on a
/// real Bluetooth LE host (``HostTransport``) instead of the simulator.
enum BLEStackCommands {
    /// The controller named by `--transport` (`tcp:HOST:PORT`, `unix:PATH` or `hci:N`).
    static func endpoint(_ arguments: Arguments) throws -> HCIEndpoint {
        guard let text = arguments.value("transport") else { throw UsageError("--transport tcp:HOST:PORT | unix:PATH | hci:N is required") }
        guard let endpoint = HCIEndpoint(text) else { throw UsageError("--transport must be tcp:HOST:PORT, unix:PATH or hci:N, not \(text)") }
        return endpoint
    }

    /// `vigil ble scan`: every advertisement heard for `--seconds`, one line per device.
    static func scan(_ arguments: Arguments) throws -> Int32 {
        let endpoint = try endpoint(arguments)
        let seconds: Double = try arguments.number("seconds", default: 5)
        guard seconds > 0, seconds <= 600 else { throw UsageError("--seconds must be between 0 and 600") }
        let session = try BLEStackSession(endpoint: endpoint)
        defer { session.close() }
        let heard = ResultBox<[String: Advertisement]>()
        heard.set([:])
        let transport = session.transport
        session.onQueue {
            let previous = transport.eventHandler
            transport.eventHandler = { event in
                if case .advertisement(let advertisement) = event {
                    var all = heard.value ?? [:]
                    let known = all[advertisement.peer.rawValue]
                    var merged = advertisement
                    // A scan response adds the name or services the advertisement left out.
                    if merged.name == nil { merged.name = known?.name }
                    if merged.services.isEmpty { merged.services = known?.services ?? [] }
                    all[advertisement.peer.rawValue] = merged
                    heard.set(all)
                }
                previous?(event)
            }
            transport.startScan(services: [])
        }
        usleep(useconds_t(seconds * 1_000_000))
        session.onQueue { transport.stopScan() }
        let devices = (heard.value ?? [:]).values.sorted { $0.peer.rawValue < $1.peer.rawValue }
        if arguments.flag("json") {
            let objects: [[String: Any]] = devices.map { device in
                var object: [String: Any] = ["peer": device.peer.rawValue, "rssi": device.rssi, "services": device.services.map(\.description)]
                if let name = device.name { object["name"] = name }
                if let family = DeviceAdapterFactory.builtIn.registration(for: device) { object["terminal"] = family.vendor }
                return object
            }
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys])
            CommandDispatcher.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            var text = "\(devices.count) device\(devices.count == 1 ? "" : "s") heard in \(seconds) s on \(endpoint)\n"
            for device in devices {
                text += "\(device.peer.rawValue)  \(device.rssi) dBm  \(device.name.map { "\"\($0)\"" } ?? "(no name)")"
                if !device.services.isEmpty { text += "  services \(device.services.map(\.description).joined(separator: ","))" }
                if let family = DeviceAdapterFactory.builtIn.registration(for: device) { text += "  terminal \(family.vendor)" }
                text += "\n"
            }
            CommandDispatcher.writeStandardOutput(text)
        }
        return 0
    }

    /// `vigil ble terminal`: finds a terminal of a known family, runs the connected sequence
    /// (link, open, info, serial, trace number; the server check approves without keys) and
    /// prints who it is.
    static func terminal(_ arguments: Arguments) throws -> Int32 {
        let endpoint = try endpoint(arguments)
        let seconds: Double = try arguments.number("seconds", default: 30)
        let session = try BLEStackSession(endpoint: endpoint)
        defer { session.close() }
        let outcome = ResultBox<Result<PaymentTerminal.Identity, PaymentTerminalError>>()
        let terminal = session.onQueue { PaymentTerminal(connection: session.connection) { _, verdict in verdict(.success(.approved)) } }
        session.onQueue { terminal.connect { outcome.set($0) } }
        let result = try session.wait("the terminal", seconds: seconds) { outcome.value }
        session.onQueue { terminal.disconnect() }
        switch result {
        case .failure(let error):
            CommandDispatcher.writeStandardError("vigil ble terminal: \(error)")
            return 1
        case .success(let identity):
            if arguments.flag("json") {
                let object: [String: Any] = ["vendor": identity.vendor, "peer": identity.peer.rawValue, "name": identity.name ?? "",
                                             "model": identity.info.model, "firmware": identity.info.firmware,
                                             "serialNumber": identity.serialNumber, "traceNumber": identity.traceNumber]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                CommandDispatcher.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
            } else {
                CommandDispatcher.writeStandardOutput("""
                    connected      \(identity.name ?? identity.peer.rawValue) (\(identity.peer.rawValue))
                    family         \(identity.vendor)
                    model          \(identity.info.model), firmware \(identity.info.firmware)
                    serial number  \(identity.serialNumber)
                    trace number   \(identity.traceNumber)

                    """)
            }
            return 0
        }
    }

    /// `vigil ble bench --stack bumble`: one transfer over VigilBLEHost to the Bumble peer
    /// (started here unless `--transport` names a controller whose peer already advertises the
    /// transfer service), beside the simulator's figure for the same mode and size.
    static func benchOnBumble(_ arguments: Arguments, mode: TransferMode, bytes: Int, window: Int, seed: UInt64) throws -> Int32 {
        var launcher: BumbleLauncher?
        let endpoint: HCIEndpoint
        if arguments.value("transport") != nil {
            endpoint = try self.endpoint(arguments)
        } else {
            let python = arguments.value("bumble-python") ?? ProcessInfo.processInfo.environment["VIGIL_BUMBLE_PYTHON"] ?? ".build/bumble-venv/bin/python"
            let script = arguments.value("bumble-peer") ?? "Tests/BumblePeer/terminal_peer.py"
            let started = try BumbleLauncher(python: python, script: script, peerArguments: ["--advertise", "transfer"])
            launcher = started
            endpoint = .tcp(host: "127.0.0.1", port: started.hostPort)
        }
        defer { launcher?.stop() }
        var generator = SeededGenerator(seed: seed)
        let payload = (0..<bytes).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let session = try BLEStackSession(endpoint: endpoint)
        defer { session.close() }
        try session.connect(.service(TransferService.profile))
        let mtu = session.onQueue { session.connection.maximumWriteLength(.withoutResponse) } + 3
        let outcome = ResultBox<Result<TransferReport, TransferError>>()
        let sender = session.onQueue {
            TransferSender(connection: session.connection, characteristic: TransferService.characteristic, payload: payload,
                           configuration: TransferConfiguration(mode: mode, requestedWindow: window)) { outcome.set($0) }
        }
        session.onQueue { sender.start() }
        let result = try session.wait("the transfer", seconds: 600) { outcome.value }
        let simulated = TransferSimulation(transfer: TransferConfiguration(mode: mode, requestedWindow: window), bytes: bytes, seed: seed).run()
        let peerVerified = launcher.map { launcher in
            launcher.events.contains { $0["event"] as? String == "transfer-completed" && ($0["verified"] as? Bool) == true }
        }
        let note = "Bumble's link has no radio timing (no connection events or air time): the stack figure measures "
            + "correctness and the host + peer processing overhead, not what a radio would deliver"
        switch result {
        case .failure(let error):
            CommandDispatcher.writeStandardError("vigil ble bench: transfer over the Bumble stack failed: \(error)")
            return 1
        case .success(let report):
            if arguments.flag("json") {
                var object: [String: Any] = [
                    "stack": "bumble", "mode": mode.description, "bytes": bytes, "mtu": mtu,
                    "goodputBytesPerSecond": (report.goodputBytesPerSecond * 10).rounded() / 10,
                    "seconds": (report.seconds * 1000).rounded() / 1000, "retransmissions": report.retransmissions,
                    "verified": report.verified, "simulatorGoodputBytesPerSecond": (simulated.goodputBytesPerSecond * 10).rounded() / 10,
                    "simulatorBoundBytesPerSecond": (simulated.boundBytesPerSecond * 10).rounded() / 10, "note": note,
                ]
                if let peerVerified { object["peerVerified"] = peerVerified }
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                CommandDispatcher.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
            } else {
                var text = "mode \(mode), \(bytes) bytes, ATT MTU \(mtu), over VigilBLEHost → HCI H4/TCP → Bumble (\(endpoint))\n"
                text += "goodput (stack)      \(Int(report.goodputBytesPerSecond.rounded())) B/s in \(String(format: "%.2f", report.seconds)) s real time\n"
                text += "goodput (simulator)  \(Int(simulated.goodputBytesPerSecond.rounded())) B/s in virtual time "
                text += "(default radio: 2M PHY, 15 ms interval; bound \(Int(simulated.boundBytesPerSecond.rounded())) B/s)\n"
                text += "retransmissions      \(report.retransmissions)\n"
                text += "verified             \(report.verified ? "yes (SHA-256 checked by the peer)" : "no")"
                if let peerVerified { text += peerVerified ? ", the peer stored every byte" : ", the peer did not report completion" }
                text += "\nnote: \(note)\n"
                CommandDispatcher.writeStandardOutput(text)
            }
            return report.verified && peerVerified != false ? 0 : 1
        }
    }
}
#endif
