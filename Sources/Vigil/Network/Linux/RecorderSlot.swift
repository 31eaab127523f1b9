#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import VigilCore

/// One instrumented configuration: its recorder, a snapshot of its settings, and the session
/// that forwards its requests with those settings.
///
/// Every forwarded exchange of the slot runs on ``queue``: the forwarding session's delegate
/// queue runs on it, and the protocol hops onto it to start and stop, so the exchanges need no
/// lock of their own.
final class RecorderSlot: @unchecked Sendable {
    let index: Int
    let recorder: NetworkRecorder
    /// Serial queue of the slot's exchanges and forwarding-session callbacks.
    let queue: DispatchQueue
    /// The protocol classes that run tasks on the native path: the app's list as it was before
    /// instrumentation, then FoundationNetworking's defaults (worked out once: making a
    /// configuration to read them costs more than a loopback request).
    private let nativeCandidates: [URLProtocol.Type]
    private let configuration: URLSessionConfiguration
    private let delegate: ForwardingSessionDelegate
    private let sessionLock = NSLock()
    private var forwardingSession: URLSession?

    init(index: Int, recorder: NetworkRecorder, configuration: URLSessionConfiguration) {
        self.index = index
        self.recorder = recorder
        self.configuration = configuration
        queue = DispatchQueue(label: "vigil.network.slot\(index)")
        delegate = ForwardingSessionDelegate()
        let classes = (configuration.protocolClasses ?? []) + (URLSessionConfiguration.ephemeral.protocolClasses ?? [])
        nativeCandidates = classes.compactMap { $0 as? URLProtocol.Type }.filter { !($0 is RecordingURLProtocol.Type) }
    }

    /// Whether the slot's protocol takes `request`: recording is on, the scheme is HTTP(S) and
    /// the host is not excluded. Called by URLSession under its protocol-class lock; cheap.
    func accepts(_ request: URLRequest) -> Bool {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              recorder.isActive else { return false }
        return !recorder.isExcluded(host: url.host?.lowercased() ?? "")
    }

    /// The session that sends the slot's requests: made on first use from the snapshot, with
    /// the app's protocol classes (not the recorder's) so nothing is recorded twice.
    var session: URLSession {
        sessionLock.lock()
        defer { sessionLock.unlock() }
        if let forwardingSession { return forwardingSession }
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 1
        operations.underlyingQueue = queue
        let made = URLSession(configuration: configuration, delegate: delegate, delegateQueue: operations)
        forwardingSession = made
        return made
    }

    /// Routes the forwarding session's callbacks for `task` to `exchange`. Call on ``queue``.
    func register(_ exchange: ForwardedExchange, for task: URLSessionTask) {
        delegate.exchanges[task.taskIdentifier] = exchange
    }

    /// Stops routing callbacks of `task`. Call on ``queue``.
    func unregister(_ task: URLSessionTask) {
        delegate.exchanges.removeValue(forKey: task.taskIdentifier)
    }

    /// Exchanges in flight (tests check that none is left behind). Call on ``queue``.
    var exchangesInFlight: Int { delegate.exchanges.count }

    /// A protocol class of the app's original list that takes `request` (FoundationNetworking's
    /// own HTTP protocol, normally).
    func nativeProtocolClass(for request: URLRequest) -> URLProtocol.Type? {
        nativeCandidates.first { $0.canInit(with: request) }
    }
}
#endif
