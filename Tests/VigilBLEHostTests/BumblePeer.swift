import Foundation
import Glibc
import VigilTestSupport

/// The Python GATT peer in `Peer/gatt_peer.py`, run on Bumble's virtual controllers for the
/// duration of a test, on loopback.
///
/// Bumble is found at `$VIGIL_BUMBLE_PYTHON`, else at `.build/bumble-venv/bin/python3` in the
/// package (where `scripts/bootstrap` may install it); tests that need it are skipped when
/// neither has Bumble.
final class BumblePeer: @unchecked Sendable {
    let port: UInt16
    private let process: Process
    private let output = Pipe()
    private let lock = NSLock()
    private var lines: [String] = []
    private var partial = ""

    static var python: String? {
        let candidates: [String?] = [ProcessInfo.processInfo.environment["VIGIL_BUMBLE_PYTHON"],
                          BuildProducts.packageRoot.appendingPathComponent(".build/bumble-venv/bin/python3").path]
        for case let path? in candidates where FileManager.default.isExecutableFile(atPath: path) {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: path)
            probe.arguments = ["-c", "import bumble"]
            probe.standardOutput = FileHandle.nullDevice
            probe.standardError = FileHandle.nullDevice
            guard (try? probe.run()) != nil else { continue }
            probe.waitUntilExit()
            if probe.terminationStatus == 0 { return path }
        }
        return nil
    }

    static var isAvailable: Bool { python != nil }

    init() throws {
        guard let python = Self.python else { throw TestSupportError("Bumble is not installed") }
        port = try Self.freeLoopbackPort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [BuildProducts.packageRoot.appendingPathComponent("Tests/VigilBLEHostTests/Peer/gatt_peer.py").path, String(port)]
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock {
                // Chunks end anywhere; only whole lines are kept.
                self.partial += String(decoding: data, as: UTF8.self)
                while let newline = self.partial.firstIndex(of: "\n") {
                    self.lines.append(String(self.partial[..<newline]))
                    self.partial = String(self.partial[self.partial.index(after: newline)...])
                }
            }
        }
        try process.run()
        guard waitFor({ $0 == "READY" }, seconds: 20) else {
            stop()
            throw TestSupportError("Bumble peer did not start: \(log)")
        }
    }

    /// Everything the peer printed.
    var log: [String] { lock.withLock { lines } }

    /// Waits until a printed line satisfies `match`.
    func waitFor(_ match: (String) -> Bool, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if log.contains(where: match) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            // SIGKILL cannot be blocked or ignored.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        output.fileHandleForReading.readabilityHandler = nil
    }

    deinit { stop() }

    private static func freeLoopbackPort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw TestSupportError("bind failed") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }
}
