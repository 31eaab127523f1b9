#if canImport(Glibc)
import Foundation

/// Starts the repository's Bumble peer (`Tests/BumblePeer/terminal_peer.py --with-controllers`)
/// for `vigil ble bench --stack bumble`: two Bumble virtual controllers on a local link, H4 over
/// loopback TCP, the peer advertising on one; the other's port is ``hostPort``. Needs the venv
/// that `scripts/bootstrap --ble` creates, and a checkout (run from the package root or pass
/// the paths). Loopback only. ``stop()`` ends the process.
final class BumbleLauncher {
    /// The H4-over-TCP port (127.0.0.1) of the controller left for Vigil's host.
    let hostPort: UInt16
    private let process: Process
    private let outputFile: URL

    /// Starts the peer with `peerArguments` and waits (at most 30 s) for it to advertise.
    init(python: String, script: String, peerArguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw BLEStackSessionError("Bumble's Python is not at \(python): run scripts/bootstrap --ble in a Vigil checkout "
                + "(or pass --bumble-python)")
        }
        guard FileManager.default.fileExists(atPath: script) else {
            throw BLEStackSessionError("the Bumble peer is not at \(script): run from a Vigil checkout's root (or pass --bumble-peer)")
        }
        outputFile = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("vigil-bumble-\(UUID().uuidString.prefix(8)).jsonl")
        FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, "--with-controllers"] + peerArguments
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while true {
            let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      object["event"] as? String == "ready", let port = (object["host_port"] as? NSNumber)?.intValue else { continue }
                hostPort = UInt16(port)
                return
            }
            guard process.isRunning, Date() < deadline else {
                if process.isRunning { process.terminate() }
                throw BLEStackSessionError("the Bumble peer did not start; it said: \(text.suffix(2000))")
            }
            usleep(20_000)
        }
    }

    /// What the peer reported (JSON lines), e.g. its `transfer-completed` event.
    var events: [[String: Any]] {
        let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Ends the peer and its controllers.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: outputFile)
    }
}
#endif
