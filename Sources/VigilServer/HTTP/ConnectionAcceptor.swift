import CMicroHTTPD
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One of the server's single-threaded libmicrohttpd daemons, with the number of connections
/// it serves. The count goes up when the acceptor hands the daemon a connection and down when
/// libmicrohttpd reports it closed (`MHD_OPTION_NOTIFY_CONNECTION`). A connection the daemon
/// takes and then drops before starting it (it never reports those) would stay counted; the
/// count only steers where new connections go.
final class HTTPWorker: Sendable {
    /// The daemon; nil once stopped.
    let daemon: Mutex<DaemonHandle?>
    /// Connections handed over and not yet closed.
    let connections = Atomic<Int>(0)
    /// Every worker's connections by socket (shared by the server's workers).
    let registry: ConnectionRegistry

    init(registry: ConnectionRegistry) {
        daemon = Mutex(nil)
        self.registry = registry
    }

    /// Connections handed over and not yet closed.
    var load: Int { connections.load(ordering: .relaxed) }

    /// Hands `client` to the daemon; false when it is stopped or refused (then the socket is closed).
    func add(_ client: Int32, address: UnsafePointer<sockaddr>, length: socklen_t) -> Bool {
        daemon.withLock { handle -> Bool in
            guard let handle else {
                registry.unregister(client)
                close(client)
                return false
            }
            connections.add(1, ordering: .relaxed)
            // libmicrohttpd closes the socket itself when it cannot take it (limit reached).
            guard MHD_add_connection(handle.pointer, client, address, length) == MHD_Result.YES else {
                connections.subtract(1, ordering: .relaxed)
                registry.unregister(client)
                return false
            }
            return true
        }
    }

    /// Called by libmicrohttpd when one of this daemon's connections closes (before it closes
    /// the socket, so the number is still this connection's).
    func connectionClosed(socket: Int32) {
        connections.subtract(1, ordering: .relaxed)
        if socket >= 0 { registry.unregister(socket) }
    }
}

/// Accepts connections on the listening socket on its own thread and deals each to the
/// ``HTTPWorker`` serving the fewest connections (the first of them on a tie), with
/// `MHD_add_connection`. It refuses a connection whose address holds its limit already
/// (``ConnectionRegistry``), and between accepts shuts down connections whose headers are
/// overdue.
///
/// Why deal them here: a worker serves its connections one request at a time, so two busy
/// connections on one worker wait for each other's requests — a whole handler's time, which
/// was most of the ingest benchmark's p99 — while another worker may idle. libmicrohttpd's own
/// thread pool picks a connection's thread by its socket number modulo the pool size, and socket
/// numbers are not consecutive once the server opens files and database connections between
/// accepts; left to itself, the pool thread that wakes first accepts every pending connection.
///
/// Threading: ``start(workers:)`` once, ``stop()`` from any thread (it waits for the thread).
final class ConnectionAcceptor: @unchecked Sendable {
    private let descriptor: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var state = State.idle

    private enum State {
        case idle, running, stopped
    }

    /// An acceptor for the listening socket `descriptor`, which it owns and closes.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Starts accepting for `workers` (daemons started with `MHD_USE_NO_LISTEN_SOCKET`).
    func start(workers: [HTTPWorker]) {
        lock.lock()
        guard case .idle = state, !workers.isEmpty else { lock.unlock(); return }
        state = .running
        lock.unlock()
        let descriptor = self.descriptor
        let finished = self.finished
        let thread = Thread {
            Self.run(descriptor: descriptor, workers: workers)
            finished.signal()
        }
        thread.name = "vigil-http-accept"
        thread.start()
    }

    /// Stops accepting, waits for the thread and closes the socket; later calls do nothing.
    func stop() {
        lock.lock()
        let previous = state
        state = .stopped
        lock.unlock()
        switch previous {
        case .running:
            // On Linux a shut-down listening socket makes the blocked accept() fail at once.
            shutdown(descriptor, Int32(SHUT_RDWR))
            finished.wait()
            close(descriptor)
        case .idle:
            close(descriptor)
        case .stopped:
            break
        }
    }

    /// The index of the worker to give the next connection: the least loaded, the first on a tie.
    static func leastLoaded(_ loads: [Int]) -> Int {
        var best = 0
        for index in loads.indices where loads[index] < loads[best] { best = index }
        return best
    }

    /// What a connection over its address's limit is told before it is closed (best effort: the
    /// socket is new, so its send buffer is empty and the write does not block).
    static let tooManyConnections: [UInt8] = {
        let body = #"{"error":"too_many_connections","reason":"this address holds the most connections the server allows one address; reuse a keep-alive connection"}"#
        return Array(("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
            + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    }()

    private static func run(descriptor: Int32, workers: [HTTPWorker]) {
        var failures = 0
        let registry = workers[0].registry
        // Non-blocking: a connection that vanished between poll and accept must not hold up
        // the deadlines until the next one arrives.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        while true {
            // Wait for a connection, but no longer than the next header deadline (and at most
            // a second, so that deadlines armed by the workers meanwhile are seen in time).
            let now = DispatchTime.now().uptimeNanoseconds
            registry.expire(now: now)
            let wait = registry.nextDeadline().map { $0 > now ? ($0 - now) / 1_000_000 + 1 : 0 } ?? 1000
            var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&polled, 1, Int32(min(wait, 1000)))
            if ready == 0 { continue }
            if ready < 0, errno == EINTR { continue }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept(descriptor, $0, &length)
                }
            }
            if client >= 0 {
                failures = 0
                // Not inherited by child processes (the server starts none, tests do).
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                let admitted = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                        registry.register(client, address: ConnectionRegistry.Address(pointer),
                                          now: DispatchTime.now().uptimeNanoseconds)
                    }
                }
                guard admitted else {
                    _ = tooManyConnections.withUnsafeBytes {
                        send(client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                    }
                    close(client)
                    continue
                }
                let worker = workers[leastLoaded(workers.map(\.load))]
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { worker.add(client, address: $0, length: length) }
                }
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED, EPROTO, EAGAIN:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                // Out of descriptors or memory: wait for connections to close instead of spinning.
                failures += 1
                usleep(UInt32(min(100_000, 1_000 * failures)))
            default:
                // EINVAL or EBADF: the socket was shut down by stop().
                return
            }
        }
    }
}
