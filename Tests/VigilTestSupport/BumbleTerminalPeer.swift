import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway Bluetooth LE world for integration tests: two Bumble virtual controllers joined
/// by Bumble's local link, each an HCI H4 transport on a loopback TCP port the kernel picked,
/// and on one of them `Tests/BumblePeer/terminal_peer.py` — a Bumble device that advertises as a
/// card terminal (or the transfer peer) and serves both terminal families, the transfer
/// receiver and a flood control service. The host under test connects to ``hostPort``.
///
/// Started in a temporary directory, stopped (SIGTERM, then SIGKILL) by ``stop()`` or deinit.
/// The peer reports what it does as JSON lines (``events``): terminal commands, connections,
/// transfer completions with the SHA-256 of the bytes it stored; with authentication or an attack
/// in ``Options``, also refusals (`refused`, with status and counter) and forged frames (`forged`).
///
/// Python comes from `$VIGIL_BUMBLE_PYTHON` or `.build/bumble-venv/bin/python`, which
/// `scripts/bootstrap --ble` (run by `make test`) creates; without it `init` throws saying so.
public final class BumbleTerminalPeer: @unchecked Sendable {
    /// What the peer advertises.
    public enum Advertisement: String, Sendable {
        /// The `0xAA55` terminal: its service UUID, name `AA55-<serial>` in the scan response.
        case framedTerminal = "aa55"
        /// The TLV terminal: only the name `TLV-POS <serial>`.
        case tlvTerminal = "tlv"
        /// The transfer peer: the transfer service UUID, name `Vigil Transfer Peer`.
        case transferPeer = "transfer"
    }

    /// A man in the middle on the `0xAA55` writes (`Tests/BumblePeer/vigil_relay.py`, the
    /// counterpart of the simulator's `ManInTheMiddle`), mounted once on the first frame of its
    /// target before the terminal sees it; every checksum it breaks it fixes.
    public enum Attack: String, Sendable {
        /// Flips one payload byte and recomputes the CRC-16.
        case flip
        /// Relays the frame, then a copy again after the next frame.
        case replay
        /// Holds the frame back and relays it after the next one.
        case reorder
    }

    /// How the peer behaves, faults included.
    public struct Options: Sendable {
        /// What it advertises (its GATT table always holds every service).
        public var advertisement: Advertisement
        /// Disconnect once, when a transfer has stored this many bytes (resumption tests).
        public var dropLinkAtBytes: Int?
        /// Characteristics whose writes are answered with an ATT error code.
        public var attErrors: [(characteristic: String, code: UInt8)]
        /// Characteristics whose Write Requests are never answered (ATT transaction timeout).
        public var unansweredWrites: [String]
        /// Terminal commands (by name, e.g. `traceNumber`) the terminals never answer.
        public var silentCommands: [String]
        /// How long the customer takes to present a card, in ms.
        public var cardDelayMs: Double
        /// When set, the `0xAA55` terminal requires authenticated commands (docs/ble-protocol.md
        /// §4), its work keys wrapped under this master key with the simulator's stand-in wrap
        /// (`AuthenticatingTerminalPeripheral.wrapKey`). Refusals are reported as `refused` events.
        public var authenticationMasterKey: [UInt8]?
        /// The man in the middle, if any; forged frames are reported as `forged` events.
        public var attack: Attack?
        /// The command it attacks, by name (nil: the card transaction; the IC parameters for reorder).
        public var attackTarget: String?
        /// The payload byte a flip changes (nil: 11, a card transaction's amount low byte behind
        /// the counter of an authenticated frame; 7 in a plain frame).
        public var flipOffset: Int?

        /// Options; by default a well-behaved `0xAA55` terminal.
        public init(advertisement: Advertisement = .framedTerminal, dropLinkAtBytes: Int? = nil,
                    attErrors: [(characteristic: String, code: UInt8)] = [], unansweredWrites: [String] = [],
                    silentCommands: [String] = [], cardDelayMs: Double = 200, authenticationMasterKey: [UInt8]? = nil,
                    attack: Attack? = nil, attackTarget: String? = nil, flipOffset: Int? = nil) {
            self.advertisement = advertisement
            self.dropLinkAtBytes = dropLinkAtBytes
            self.attErrors = attErrors
            self.unansweredWrites = unansweredWrites
            self.silentCommands = silentCommands
            self.cardDelayMs = cardDelayMs
            self.authenticationMasterKey = authenticationMasterKey
            self.attack = attack
            self.attackTarget = attackTarget
            self.flipOffset = flipOffset
        }

        var arguments: [String] {
            var arguments = ["--advertise", advertisement.rawValue, "--card-delay-ms", String(cardDelayMs)]
            if let dropLinkAtBytes { arguments += ["--drop-link-at", String(dropLinkAtBytes)] }
            for (characteristic, code) in attErrors { arguments += ["--att-error", "\(characteristic):\(code)"] }
            for characteristic in unansweredWrites { arguments += ["--no-response", characteristic] }
            for name in silentCommands { arguments += ["--silent-command", name] }
            if let authenticationMasterKey {
                arguments += ["--authenticate", "--master-key", authenticationMasterKey.map { String(format: "%02x", $0) }.joined()]
            }
            if let attack { arguments += ["--attack", attack.rawValue] }
            if let attackTarget { arguments += ["--attack-target", attackTarget] }
            if let flipOffset { arguments += ["--flip-offset", String(flipOffset)] }
            return arguments
        }
    }

    /// One line the peer reported.
    public struct Event: @unchecked Sendable, CustomStringConvertible {
        /// Its `event` field (`ready`, `connected`, `command`, `transfer-completed`, …).
        public let name: String
        /// Every field, as JSON decoded them.
        public let fields: [String: Any]

        /// A string field.
        public func string(_ key: String) -> String? { fields[key] as? String }
        /// An integer field.
        public func int(_ key: String) -> Int? { (fields[key] as? NSNumber)?.intValue }
        /// A Boolean field.
        public func bool(_ key: String) -> Bool? { (fields[key] as? NSNumber)?.boolValue }

        public var description: String { "\(name) \(fields)" }
    }

    /// The H4-over-TCP port (127.0.0.1) of the controller left for the host under test.
    public let hostPort: UInt16
    /// The peer's random static address, as it advertises it.
    public let peerAddress = "F0:F1:F2:F3:F4:F5"
    /// The directory the processes run in.
    public let directory: TemporaryDirectory
    private let process: SpawnedProcess.Handle
    private let lock = NSLock()
    private var stopped = false

    /// The Python interpreter of the Bumble venv.
    public static var python: URL {
        if let explicit = ProcessInfo.processInfo.environment["VIGIL_BUMBLE_PYTHON"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        return BuildProducts.packageRoot.appendingPathComponent(".build/bumble-venv/bin/python")
    }

    /// `Tests/BumblePeer/terminal_peer.py`.
    public static var script: URL {
        BuildProducts.packageRoot.appendingPathComponent("Tests/BumblePeer/terminal_peer.py")
    }

    /// Starts the controllers and the peer; returns once the peer advertises (throws with its
    /// output when it does not within `timeout` seconds, or when Bumble is not installed).
    /// `python` overrides ``python`` (for the missing-venv message's test).
    public init(_ options: Options = Options(), timeout: Double = 30, python: URL? = nil) throws {
        let python = python ?? Self.python
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw TestSupportError("Bumble is not installed (\(python.path) is missing): run scripts/bootstrap --ble "
                + "(make test does), which creates the venv and installs PyPI bumble into it")
        }
        let directory = try TemporaryDirectory(prefix: "bumble")
        // VIGIL_BUMBLE_VERBOSE=1: Bumble's debug log (every HCI packet) in ``log``.
        let verbose = ProcessInfo.processInfo.environment["VIGIL_BUMBLE_VERBOSE"] == "1" ? ["--verbose"] : []
        let process = try SpawnedProcess.start(python.path, [Self.script.path, "--with-controllers"] + options.arguments + verbose,
                                               environment: ["PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"],
                                               currentDirectory: directory.url.path)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let ready = Self.parse(process.standardOutput).first(where: { $0.name == "ready" }), let port = ready.int("host_port") {
                hostPort = UInt16(port)
                break
            }
            if process.hasExited || Date() > deadline {
                if !process.hasExited { process.terminate(SIGKILL) }
                let outcome = process.wait(timeout: 5)
                directory.remove()
                throw TestSupportError("the Bumble peer did not start: \(outcome)")
            }
            usleep(20_000)
        }
        self.directory = directory
        self.process = process
    }

    deinit { stop() }

    /// Everything the peer reported so far, in order.
    public var events: [Event] { Self.parse(process.standardOutput) }

    /// The first event named `name` that satisfies `matching`, waiting up to `timeout` seconds.
    public func waitForEvent(_ name: String, timeout: Double = 10, matching: (Event) -> Bool = { _ in true }) throws -> Event {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let event = events.first(where: { $0.name == name && matching($0) }) { return event }
            guard Date() < deadline, !process.hasExited else {
                throw TestSupportError("the Bumble peer never reported \(name); it said:\n\(process.standardOutput.suffix(3000))"
                    + "\n--- stderr\n\(process.standardError.suffix(3000))")
            }
            usleep(10_000)
        }
    }

    /// What the peer wrote on standard error (Bumble's warnings), for failure messages.
    public var log: String { process.standardError }

    /// Stops the peer and its controllers (SIGTERM, SIGKILL after 5 s) and removes the directory.
    public func stop() {
        let shouldStop: Bool = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard shouldStop else { return }
        process.terminate(SIGTERM)
        process.wait(timeout: 5)
        directory.remove()
    }

    private static func parse(_ output: String) -> [Event] {
        output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let name = object["event"] as? String else { return nil }
            return Event(name: name, fields: object)
        }
    }
}
