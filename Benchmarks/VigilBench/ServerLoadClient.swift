import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A keep-alive HTTP/1.1 client over one blocking loopback socket, for the load generator:
/// no thread hops or buffering between the clock and the socket, so the measured latency is
/// the server's plus the kernel's.
///
/// It sends requests with `Content-Length` and reads answers framed by `Content-Length` (what
/// the server writes); anything else is an error. Not for general use.
final class ServerLoadClient {
    private var descriptor: Int32 = -1
    private let port: UInt16
    private var buffer = [UInt8]()

    init(port: UInt16) throws {
        self.port = port
        try connect()
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    private func connect() throws {
        if descriptor >= 0 { close(descriptor) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoadError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw LoadError("connect to port \(port): errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        descriptor = fd
        buffer.removeAll(keepingCapacity: true)
    }

    /// Sends one request and returns the status and body; reconnects once if the server
    /// closed the idle connection.
    func send(method: String, path: String, headers: [(String, String)], body: Data) throws -> (status: Int, body: Data) {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var request = Data(head.utf8)
        request.append(body)
        do {
            try write(request)
            return try readResponse()
        } catch {
            try connect()
            try write(request)
            return try readResponse()
        }
    }

    private func write(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw LoadError("send: errno \(errno)")
                }
                offset += written
            }
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 && errno == EINTR { return }
        guard count > 0 else { throw LoadError("connection closed") }
        buffer.append(contentsOf: chunk[0..<count])
    }

    private func readResponse() throws -> (status: Int, body: Data) {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if buffer.count >= 4 {
                headEnd = (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(separator) }
            }
            if headEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."), statusLine.count >= 12,
              let status = Int(statusLine.dropFirst(9).prefix(3)) else { throw LoadError("bad status line \(lines.first ?? "")") }
        var length = 0
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        let bodyStart = headEnd! + 4
        while buffer.count < bodyStart + length { try fill() }
        let body = Data(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return (status, body)
    }
}

/// A load-generation failure.
struct LoadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
