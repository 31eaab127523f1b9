#if os(Linux)
import Foundation

/// The network path on Linux, from the interfaces under `/sys/class/net`: an interface that is
/// up and has a `wireless` directory makes the path `wifi`, any other non-loopback interface
/// that is up makes it `wired`, none makes it `none`. Linux paths are reported as unmetered:
/// the kernel does not know what a link costs.
///
/// Reads a few tiny sysfs files per call (cached for `cacheSeconds`); a missing or unreadable
/// directory gives `unknown`, never an error.
public final class SysfsNetworkPath: NetworkPathSource, @unchecked Sendable {
    private let root: URL
    private let cacheSeconds: Double
    private let lock = NSLock()
    private var cached: (status: NetworkPathStatus, at: Date)?

    /// A source reading `root` (`/sys/class/net` unless a test points it elsewhere).
    public init(root: URL = URL(fileURLWithPath: "/sys/class/net"), cacheSeconds: Double = 5) {
        self.root = root
        self.cacheSeconds = cacheSeconds
    }

    public func currentPath() -> NetworkPathStatus {
        lock.lock(); defer { lock.unlock() }
        if let cached, Date().timeIntervalSince(cached.at) < cacheSeconds { return cached.status }
        let status = read()
        cached = (status, Date())
        return status
    }

    private func read() -> NetworkPathStatus {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else {
            return NetworkPathStatus(kind: .unknown, isExpensive: false)
        }
        var sawWired = false
        for name in names.sorted() where name != "lo" {
            let interface = root.appendingPathComponent(name)
            let state = (try? String(contentsOf: interface.appendingPathComponent("operstate"), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard state == "up" else { continue }
            // ARPHRD_LOOPBACK (772) and other non-Ethernet link types are not a way out.
            let type = (try? String(contentsOf: interface.appendingPathComponent("type"), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if type == "772" { continue }
            if FileManager.default.fileExists(atPath: interface.appendingPathComponent("wireless").path) {
                return NetworkPathStatus(kind: .wifi, isExpensive: false)
            }
            sawWired = true
        }
        return NetworkPathStatus(kind: sawWired ? .wired : .none, isExpensive: false)
    }
}
#endif
