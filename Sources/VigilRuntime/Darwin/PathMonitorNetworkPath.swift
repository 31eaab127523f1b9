#if canImport(Network)
import Foundation
import Network

/// The network path on Apple platforms, from `NWPathMonitor`. Mirrors ``SysfsNetworkPath``.
public final class PathMonitorNetworkPath: NetworkPathSource, @unchecked Sendable {
    private let monitor = NWPathMonitor()
    private let lock = NSLock()
    private var status = NetworkPathStatus(kind: .unknown, isExpensive: false)

    /// Starts monitoring on `queue` (the SDK's monitoring queue).
    public init(queue: DispatchQueue) {
        monitor.pathUpdateHandler = { [weak self] path in
            let kind: NetworkPathKind
            if path.status != .satisfied {
                kind = .none
            } else if path.usesInterfaceType(.wifi) {
                kind = .wifi
            } else if path.usesInterfaceType(.cellular) {
                kind = .cellular
            } else if path.usesInterfaceType(.wiredEthernet) {
                kind = .wired
            } else {
                kind = .unknown
            }
            self?.update(NetworkPathStatus(kind: kind, isExpensive: path.isExpensive))
        }
        monitor.start(queue: queue)
    }

    deinit { monitor.cancel() }

    private func update(_ newStatus: NetworkPathStatus) {
        lock.lock(); defer { lock.unlock() }
        status = newStatus
    }

    public func currentPath() -> NetworkPathStatus {
        lock.lock(); defer { lock.unlock() }
        return status
    }
}
#endif
