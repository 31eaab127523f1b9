#if canImport(Network)
import Foundation
import Network

/// ``NetworkPathProvider`` over `NWPathMonitor`: the path is metered when it is expensive
/// (cellular, a personal hotspot) or constrained (Low Data Mode).
///
/// Thin on purpose: the policy that uses the path lives in ``EventUploader`` and is tested
/// on Linux with a scripted provider.
public final class PathMonitorNetworkProvider: NetworkPathProvider, @unchecked Sendable {
    private let monitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "dev.vigil.network-path", qos: .utility)
    private let lock = NSLock()
    private var path = NetworkPath.unmetered
    private var handler: (@Sendable (NetworkPath) -> Void)?

    /// Starts monitoring; the first reading arrives within milliseconds, long before the
    /// uploader's launch delay ends.
    public init() {
        monitor.pathUpdateHandler = { [weak self] update in
            self?.store(NetworkPath(isAvailable: update.status == .satisfied,
                                    isMetered: update.isExpensive || update.isConstrained))
        }
        monitor.start(queue: queue)
    }

    deinit { monitor.cancel() }

    public var currentPath: NetworkPath {
        lock.lock()
        defer { lock.unlock() }
        return path
    }

    public func onChange(_ handler: @escaping @Sendable (NetworkPath) -> Void) {
        lock.lock()
        self.handler = handler
        lock.unlock()
    }

    private func store(_ new: NetworkPath) {
        lock.lock()
        let changed = new != path
        path = new
        let handler = self.handler
        lock.unlock()
        if changed { handler?(new) }
    }
}
#endif
