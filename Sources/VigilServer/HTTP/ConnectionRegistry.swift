import CMicroHTTPD
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The server's open connections by socket, across every worker daemon: which client address
/// each came from, so that one address holds at most ``perAddressLimit`` of them, and — while
/// the server waits for a request's headers — the time by which they must have arrived.
///
/// Why here and not in libmicrohttpd: its per-address limit and timeouts are per daemon, and
/// the server runs one single-threaded daemon per worker; its timeout is an idle timeout, which
/// a client sending one header byte every few seconds (slowloris) resets forever.
///
/// A connection waiting for headers holds a duplicate of its socket (`dup`): when the deadline
/// passes, ``expire(now:)`` shuts the duplicate down, which ends the connection the daemon
/// serves (it reads end of file and closes it), without ever touching a descriptor number
/// that may have been closed and reused meanwhile.
///
/// Threading: safe to share; every call takes one short lock. Times are monotonic nanoseconds
/// passed in by the caller.
final class ConnectionRegistry: Sendable {
    /// A client's IP address: IPv4 addresses as their IPv4-mapped IPv6 form.
    struct Address: Hashable, Sendable, CustomStringConvertible {
        var high: UInt64
        var low: UInt64

        /// The address of an `AF_INET` or `AF_INET6` socket address; nil for other families.
        init?(_ address: UnsafePointer<sockaddr>) {
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
                high = 0
                low = 0xFFFF_0000_0000 | UInt64(v4)
            case AF_INET6:
                let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
                high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
                low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
            default:
                return nil
            }
        }

        init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }

        var description: String { String(format: "%016llx%016llx", high, low) }
    }

    private struct Entry {
        var address: Address?
        /// The duplicate socket held while headers are awaited; -1 otherwise.
        var duplicate: Int32 = -1
        var deadline: UInt64 = 0
    }

    private struct State {
        var entries: [Int32: Entry] = [:]
        var perAddress: [Address: Int] = [:]
        var expired = 0
        var refused = 0
    }

    private let state = Mutex(State())
    /// Most connections one address may hold open at once; 0: no limit.
    let perAddressLimit: Int
    /// How long a request's headers may take, from the connection's start or the previous
    /// answer; 0: no deadline.
    let headerTimeoutNanoseconds: UInt64

    init(perAddressLimit: Int, headerTimeoutSeconds: Double) {
        self.perAddressLimit = max(0, perAddressLimit)
        self.headerTimeoutNanoseconds = headerTimeoutSeconds > 0 ? UInt64(headerTimeoutSeconds * 1e9) : 0
    }

    /// Records a newly accepted `socket` from `address`, its headers due by `now` plus the
    /// timeout; false (and nothing recorded) when the address holds its limit already.
    func register(_ socket: Int32, address: Address?, now: UInt64) -> Bool {
        state.withLock { state in
            // An entry left under this number belongs to a connection the daemon dropped
            // without reporting it (it never started it): the number was closed and reused.
            if let stale = state.entries.removeValue(forKey: socket) { Self.release(stale, in: &state) }
            if let address {
                let held = state.perAddress[address, default: 0]
                if perAddressLimit > 0, held >= perAddressLimit {
                    state.refused += 1
                    return false
                }
                state.perAddress[address] = held + 1
            }
            var entry = Entry(address: address)
            arm(&entry, socket: socket, now: now)
            state.entries[socket] = entry
            return true
        }
    }

    /// Forgets `socket` (closed, or refused by its daemon).
    func unregister(_ socket: Int32) {
        state.withLock { state in
            if let entry = state.entries.removeValue(forKey: socket) { Self.release(entry, in: &state) }
        }
    }

    /// The connection on `socket` answered a request and waits for the next one's headers.
    func awaitHeaders(_ socket: Int32, now: UInt64) {
        state.withLock { state in
            guard var entry = state.entries[socket] else { return }
            arm(&entry, socket: socket, now: now)
            state.entries[socket] = entry
        }
    }

    /// The headers on `socket` arrived in time: the deadline no longer applies.
    func headersArrived(_ socket: Int32) {
        state.withLock { state in
            guard var entry = state.entries[socket], entry.duplicate >= 0 else { return }
            close(entry.duplicate)
            entry.duplicate = -1
            state.entries[socket] = entry
        }
    }

    /// Shuts down every connection whose headers are overdue at `now`; returns how many.
    @discardableResult
    func expire(now: UInt64) -> Int {
        state.withLock { state in
            var count = 0
            for (socket, entry) in state.entries where entry.duplicate >= 0 && entry.deadline <= now {
                // The daemon sees end of file on its socket and closes the connection (and
                // reports it, which unregisters it).
                shutdown(entry.duplicate, Int32(SHUT_RDWR))
                close(entry.duplicate)
                state.entries[socket]?.duplicate = -1
                count += 1
            }
            state.expired += count
            return count
        }
    }

    /// The earliest pending header deadline, if any.
    func nextDeadline() -> UInt64? {
        state.withLock { state in
            state.entries.values.lazy.filter { $0.duplicate >= 0 }.map(\.deadline).min()
        }
    }

    /// Open connections from `address`.
    func connections(from address: Address) -> Int {
        state.withLock { $0.perAddress[address, default: 0] }
    }

    /// Connections shut down for overdue headers, and refused for their address's limit, so far.
    var counts: (expired: Int, refused: Int) {
        state.withLock { ($0.expired, $0.refused) }
    }

    /// Closes every duplicate and forgets every connection (the server has stopped).
    func removeAll() {
        state.withLock { state in
            for entry in state.entries.values where entry.duplicate >= 0 { close(entry.duplicate) }
            state = State(expired: state.expired, refused: state.refused)
        }
    }

    private func arm(_ entry: inout Entry, socket: Int32, now: UInt64) {
        guard headerTimeoutNanoseconds > 0 else { return }
        if entry.duplicate < 0 {
            // F_DUPFD_CLOEXEC: not inherited by child processes.
            entry.duplicate = fcntl(socket, F_DUPFD_CLOEXEC, 0)
        }
        entry.deadline = now &+ headerTimeoutNanoseconds
    }

    private static func release(_ entry: Entry, in state: inout State) {
        if entry.duplicate >= 0 { close(entry.duplicate) }
        if let address = entry.address, let held = state.perAddress[address] {
            if held <= 1 { state.perAddress.removeValue(forKey: address) } else { state.perAddress[address] = held - 1 }
        }
    }
}
