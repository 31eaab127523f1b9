import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd, dispatching to an ``HTTPRouter``.
///
/// libmicrohttpd parses HTTP; this type only binds the socket, receives bodies under each
/// route's ``BodyPolicy`` (inflating gzip as it arrives), calls the handler on the thread that
/// owns the connection and queues its answer. Handlers may block: each of the
/// ``HTTPServerConfiguration/threads`` threads is a single-threaded daemon of its own serving
/// its connections, and the ``ConnectionAcceptor`` gives each new connection to the one with
/// the fewest.
///
/// Threading: safe to share; ``stop()`` may be called from any thread, once or many times, and
/// returns after every in-flight handler has finished.
public final class HTTPServer: Sendable {
    /// The port the server listens on (the kernel's choice when the configuration said 0).
    public let port: UInt16
    /// The address it is bound to.
    public let bindAddress: String
    private let workers: [HTTPWorker]
    private let dispatch: Unmanaged<HTTPDispatch>
    private let acceptor: ConnectionAcceptor
    /// Every connection's address and header deadline.
    let connectionRegistry: ConnectionRegistry

    /// Binds, starts the worker daemons and begins serving `router`.
    ///
    /// `observer` is called after every answered request with the route's name (or `-` for
    /// none), the status and the seconds from headers received to answer queued.
    public init(configuration: HTTPServerConfiguration, router: HTTPRouter,
                observer: (@Sendable (String, Int, Double) -> Void)? = nil) throws {
        let socket = try ListeningSocket(address: configuration.bindAddress, port: configuration.port)
        let acceptor = ConnectionAcceptor(descriptor: socket.descriptor)
        let registry = ConnectionRegistry(perAddressLimit: configuration.connectionsPerAddress,
                                          headerTimeoutSeconds: configuration.headerTimeoutSeconds)
        let dispatch = Unmanaged.passRetained(HTTPDispatch(router: router, observer: observer, handlerNice: configuration.handlerNice,
                                                           pacing: configuration.bodyPacing, registry: registry))
        let workers = (0..<configuration.threads).map { _ in HTTPWorker(registry: registry) }
        // The limit is the whole server's; each worker may take its share, rounded up.
        let perWorkerLimit = max(1, (configuration.connectionLimit + workers.count - 1) / workers.count)
        for worker in workers {
            guard let started = Self.startDaemon(configuration: configuration, connectionLimit: perWorkerLimit,
                                                 dispatch: dispatch, worker: worker) else {
                for started in workers { started.daemon.withLock { $0 }.map { MHD_stop_daemon($0.pointer) } }
                acceptor.stop()
                dispatch.release()
                throw HTTPServerError.daemonStart("MHD_start_daemon returned NULL (worker of \(configuration.threads))")
            }
            worker.daemon.withLock { $0 = started }
        }
        self.port = socket.port
        self.bindAddress = configuration.bindAddress
        self.workers = workers
        self.dispatch = dispatch
        self.acceptor = acceptor
        self.connectionRegistry = registry
        acceptor.start(workers: workers)
    }

    /// One single-threaded daemon without a listening socket: connections come from the acceptor.
    private static func startDaemon(configuration: HTTPServerConfiguration, connectionLimit: Int,
                                    dispatch: Unmanaged<HTTPDispatch>, worker: HTTPWorker) -> DaemonHandle? {
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_LIMIT, value: connectionLimit, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_TIMEOUT, value: configuration.connectionTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_MEMORY_LIMIT, value: 128 * 1024, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.NOTIFY_COMPLETED,
                           value: unsafeBitCast(requestCompleted, to: Int.self), ptr_value: dispatch.toOpaque()),
            // The server holds its workers until their daemons are stopped.
            MHD_OptionItem(option: MHD_OPTION.NOTIFY_CONNECTION,
                           value: unsafeBitCast(connectionNotified, to: Int.self),
                           ptr_value: Unmanaged.passUnretained(worker).toOpaque()),
            MHD_OptionItem(option: MHD_OPTION.END, value: 0, ptr_value: nil),
        ]
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_AUTO.rawValue | MHD_USE_ERROR_LOG.rawValue
            | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ITC.rawValue
        let started: OpaquePointer? = options.withUnsafeMutableBufferPointer { buffer in
            withVaList([MHD_OPTION.ARRAY.rawValue, buffer.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                MHD_start_daemon_va(flags, 0, nil, nil, accessHandler, dispatch.toOpaque(), arguments)
            }
        }
        return started.map(DaemonHandle.init(pointer:))
    }

    /// Stops accepting, waits for in-flight requests and closes every connection.
    public func stop() {
        // No connection may be handed over once a daemon is taken.
        let handles = workers.compactMap { worker in
            worker.daemon.withLock { current -> DaemonHandle? in
                let taken = current
                current = nil
                return taken
            }
        }
        acceptor.stop()
        for handle in handles { MHD_stop_daemon(handle.pointer) }
        connectionRegistry.removeAll()
    }

    /// Connections each worker serves now; for tests.
    var workerLoads: [Int] { workers.map(\.load) }

    /// Request body bytes received so far, all requests together (what libmicrohttpd handed
    /// over, before any decoding).
    public var bodyBytesReceived: Int { dispatch.takeUnretainedValue().bodyBytes.value }

    /// Connections shut down because their headers were overdue, and refused because their
    /// address held its limit, since the start.
    public var refusedConnections: (headerTimeouts: Int, perAddressLimit: Int) {
        let counts = connectionRegistry.counts
        return (counts.expired, counts.refused)
    }

    deinit {
        stop()
        dispatch.release()
    }
}

/// Settings of an ``HTTPServer``.
public struct HTTPServerConfiguration: Sendable, Hashable {
    /// Address to bind: `127.0.0.1` by default, so that nothing is exposed unless asked.
    public var bindAddress: String
    /// TCP port; 0 lets the kernel choose a free one.
    public var port: UInt16
    /// Worker threads (one single-threaded libmicrohttpd daemon each); each serves its
    /// connections and runs their handlers.
    public var threads: Int
    /// Most simultaneous connections.
    public var connectionLimit: Int
    /// Idle seconds before a connection is closed.
    public var connectionTimeoutSeconds: Int
    /// Most connections one client address may hold at once, across every worker (0: no limit).
    /// Over it, a new connection gets a `429` and is closed.
    public var connectionsPerAddress: Int
    /// Seconds a request's headers may take in all, from the connection's start or the previous
    /// answer on it (0: no limit). Unlike the idle timeout, a client sending a byte now and then
    /// does not extend it.
    public var headerTimeoutSeconds: Double
    /// The slowest a request body may arrive.
    public var bodyPacing: BodyPacing
    /// The nice value the worker threads take when they begin a request (Linux; 0 leaves them as
    /// they are). Handlers decode and analyze on these threads, many at once; the serial steps
    /// they wait for (the group commit's thread, PostgreSQL's backends) keep the default
    /// priority, so they are not queued for the CPU behind the work that feeds them. Raising a
    /// thread's nice value needs no privilege; it is never lowered again.
    public var handlerNice: Int32

    /// Creates a configuration.
    public init(bindAddress: String = "127.0.0.1", port: UInt16 = 0, threads: Int = 8,
                connectionLimit: Int = 1024, connectionTimeoutSeconds: Int = 30, handlerNice: Int32 = 5,
                connectionsPerAddress: Int = 64, headerTimeoutSeconds: Double = 20, bodyPacing: BodyPacing = BodyPacing()) {
        self.bindAddress = bindAddress
        self.port = port
        self.threads = max(1, threads)
        self.connectionLimit = connectionLimit
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.connectionsPerAddress = max(0, connectionsPerAddress)
        self.headerTimeoutSeconds = max(0, headerTimeoutSeconds)
        self.bodyPacing = bodyPacing
        self.handlerNice = max(0, min(19, handlerNice))
    }
}

/// The daemon pointer, moved between threads only under the server's lock.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

// MARK: - The C callbacks
//
// libmicrohttpd calls these on its worker threads. They capture nothing (a C function pointer
// cannot); the server's `HTTPDispatch` travels as the unretained `cls` pointer (the server
// retains it until after MHD_stop_daemon), and each request's `RequestState` as a retained
// pointer in `*con_cls`, released by `requestCompleted`.

private let accessHandler: MHD_AccessHandlerCallback = {
    cls, connection, url, method, _, uploadData, uploadDataSize, requestContext in
    guard let cls, let connection, let uploadDataSize, let requestContext else { return MHD_Result.NO }
    let dispatch = Unmanaged<HTTPDispatch>.fromOpaque(cls).takeUnretainedValue()
    if let existing = requestContext.pointee {
        let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
        if uploadDataSize.pointee > 0 {
            let bytes = UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee)
            let keepReading = state.receive(bytes)
            uploadDataSize.pointee = 0
            return keepReading ? MHD_Result.YES : MHD_Result.NO
        }
        return dispatch.finish(state, connection: connection)
    }
    dispatch.registry.headersArrived(vigil_mhd_connection_socket(connection))
    let path = url.map { String(cString: $0) } ?? "/"
    let verb = method.map { String(cString: $0) } ?? "GET"
    switch dispatch.begin(connection: connection, method: verb, path: path) {
    case .answer(let response):
        return HTTPDispatch.queue(response, on: connection)
    case .receive(let state):
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
        return MHD_Result.YES
    }
}

private let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, code == .CONNECTION_NOTIFY_CLOSED else { return }
    let socket = connection.map { vigil_mhd_connection_socket($0) } ?? -1
    Unmanaged<HTTPWorker>.fromOpaque(cls).takeUnretainedValue().connectionClosed(socket: Int32(socket))
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
    // The connection may carry another request: its headers are due within the timeout again.
    // (When it closes instead, the close notification forgets it.)
    if let cls, let connection {
        Unmanaged<HTTPDispatch>.fromOpaque(cls).takeUnretainedValue().registry
            .awaitHeaders(vigil_mhd_connection_socket(connection), now: DispatchTime.now().uptimeNanoseconds)
    }
    guard let requestContext, let pointer = requestContext.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
    state.discard()
    requestContext.pointee = nil
}

private let collectValue: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return MHD_Result.YES }
    let collector = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.add(String(cString: key), value.map { String(cString: $0) } ?? "")
    return MHD_Result.YES
}

/// Accumulates a connection's headers or query arguments through `MHD_get_connection_values`.
final class ValueCollector {
    var values: [String: String] = [:]
    let lowercaseKeys: Bool
    let joinRepeats: Bool

    init(lowercaseKeys: Bool, joinRepeats: Bool) {
        self.lowercaseKeys = lowercaseKeys
        self.joinRepeats = joinRepeats
    }

    func add(_ key: String, _ value: String) {
        let name = lowercaseKeys ? key.lowercased() : key
        if joinRepeats, let existing = values[name] {
            values[name] = existing + ", " + value
        } else {
            values[name] = value
        }
    }

    static func collect(_ connection: OpaquePointer, kind: MHD_ValueKind, lowercaseKeys: Bool, joinRepeats: Bool) -> [String: String] {
        let collector = ValueCollector(lowercaseKeys: lowercaseKeys, joinRepeats: joinRepeats)
        let pointer = Unmanaged.passUnretained(collector).toOpaque()
        _ = MHD_get_connection_values(connection, kind, collectValue, pointer)
        return withExtendedLifetime(collector) { collector.values }
    }
}
