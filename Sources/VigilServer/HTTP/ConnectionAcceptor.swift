import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Accepts connections on the listening socket on its own thread and hands each to
/// libmicrohttpd with `MHD_add_connection`, which gives it to a pool thread chosen by the
/// socket number — consecutive connections go to consecutive threads.
///
/// Why not let libmicrohttpd accept: in thread-pool mode the pool thread that wakes first
/// accepts every pending connection (up to ten at once) and keeps them, so clients that
/// connect together — eight ingest clients starting at once — could all land on one thread
/// and be served one request at a time while the other threads idle.
///
/// Threading: ``start(daemon:)`` once, ``stop()`` from any thread (it waits for the thread).
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

    /// Starts accepting for `daemon` (started with `MHD_USE_NO_LISTEN_SOCKET`).
    func start(daemon: DaemonHandle) {
        lock.lock()
        guard case .idle = state else { lock.unlock(); return }
        state = .running
        lock.unlock()
        let descriptor = self.descriptor
        let finished = self.finished
        let thread = Thread {
            Self.run(descriptor: descriptor, daemon: daemon)
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

    private static func run(descriptor: Int32, daemon: DaemonHandle) {
        var failures = 0
        while true {
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
                // libmicrohttpd closes the socket itself when it cannot take it (limit reached).
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        MHD_add_connection(daemon.pointer, client, $0, length)
                    }
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
