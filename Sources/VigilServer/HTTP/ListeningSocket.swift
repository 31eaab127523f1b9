import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket bound to an address and listening, accepted on by ``ConnectionAcceptor``.
///
/// Binding here rather than inside libmicrohttpd gives one place that understands IPv4 and
/// IPv6 bind addresses, reports `EADDRINUSE` clearly, and learns the real port when port 0
/// asks the kernel for a free one.
struct ListeningSocket {
    /// The file descriptor; owned by the server's ``ConnectionAcceptor``.
    let descriptor: Int32
    /// The bound port.
    let port: UInt16

    /// Binds `address` (an IPv4 or IPv6 literal, or `localhost`) and `port` and listens.
    init(address: String, port: UInt16, backlog: Int32 = 1024) throws {
        let host = address == "localhost" ? "127.0.0.1" : address
        var v4 = in_addr()
        var v6 = in6_addr()
        let isV4 = inet_pton(AF_INET, host, &v4) == 1
        let isV6 = !isV4 && inet_pton(AF_INET6, host, &v6) == 1
        guard isV4 || isV6 else {
            throw HTTPServerError.invalidBindAddress(address)
        }
        #if canImport(Glibc)
        let fd = socket(isV4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(isV4 ? AF_INET : AF_INET6, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw HTTPServerError.socket(operation: "socket", errno: errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if isV4 {
            var address4 = sockaddr_in()
            address4.sin_family = sa_family_t(AF_INET)
            address4.sin_port = port.bigEndian
            address4.sin_addr = v4
            bound = withUnsafePointer(to: &address4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var address6 = sockaddr_in6()
            address6.sin6_family = sa_family_t(AF_INET6)
            address6.sin6_port = port.bigEndian
            address6.sin6_addr = v6
            bound = withUnsafePointer(to: &address6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw HTTPServerError.bind(address: address, port: port, errno: code)
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw HTTPServerError.socket(operation: "listen", errno: code)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw HTTPServerError.socket(operation: "getsockname", errno: code)
        }
        let boundPort: UInt16 = withUnsafePointer(to: &storage) { pointer in
            if isV4 {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        self.descriptor = fd
        self.port = boundPort
    }
}

/// Why the HTTP server could not start.
public enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// `--bind` is not an IP address.
    case invalidBindAddress(String)
    /// Binding failed (most often `EADDRINUSE`).
    case bind(address: String, port: UInt16, errno: Int32)
    /// Another socket call failed.
    case socket(operation: String, errno: Int32)
    /// libmicrohttpd refused to start.
    case daemonStart(String)

    public var description: String {
        switch self {
        case .invalidBindAddress(let address):
            return "bind address \"\(address)\" is not an IPv4 or IPv6 address"
        case .bind(let address, let port, let code):
            return "cannot listen on \(address):\(port): \(String(cString: strerror(code)))"
        case .socket(let operation, let code):
            return "\(operation) failed: \(String(cString: strerror(code)))"
        case .daemonStart(let message):
            return "libmicrohttpd did not start: \(message)"
        }
    }
}
