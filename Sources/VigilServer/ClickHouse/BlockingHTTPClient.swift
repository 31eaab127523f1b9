import Foundation
#if canImport(Glibc)
import Glibc
private let systemConnect = Glibc.connect
private let systemSend = Glibc.send
private let noSignal = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin
private let systemConnect = Darwin.connect
private let systemSend = Darwin.send
private let noSignal: Int32 = 0
#endif

/// A minimal HTTP/1.1 client over a blocking TCP socket: one connection per request
/// (`Connection: close`), a fixed timeout for connecting, sending and each read, and bodies
/// with `Content-Length`, chunked transfer coding, or read to the end of the stream.
///
/// Enough for ClickHouse's HTTP interface on a trusted network; no TLS, redirects or proxies.
/// Threading: a value; each call is independent and blocks its thread. Cost: one TCP handshake
/// per request (tens of microseconds on loopback).
public struct BlockingHTTPClient: Sendable {
    /// One answer.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// Header fields, names lowercased.
        public var headers: [String: String]
        /// The body, with transfer coding undone.
        public var body: Data
    }

    /// The host name or address.
    public var host: String
    /// The TCP port.
    public var port: UInt16
    /// Seconds allowed for connecting, for sending, and for each read.
    public var timeout: Double

    /// A client for `host:port`.
    public init(host: String, port: UInt16, timeout: Double = 30) {
        self.host = host
        self.port = port
        self.timeout = timeout
    }

    /// Sends `method target` with `body` and reads the whole answer.
    ///
    /// Throws ``ClickHouseError/transport(_:)`` when the connection fails or the answer cannot
    /// be read (the request may or may not have taken effect).
    public func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: Data = Data()) throws -> Response {
        let fd = try connect()
        defer { close(fd) }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try write(fd, Data(head.utf8))
        if !body.isEmpty { try write(fd, body) }
        return try Self.parse(readAll(fd))
    }

    private func connect() throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw ClickHouseError.transport("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            setTimeouts(fd)
            if systemConnect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return fd
            }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw ClickHouseError.transport("cannot connect to \(host):\(port): \(lastError)")
    }

    private func setTimeouts(_ fd: Int32) {
        var tv = timeval(tv_sec: .init(timeout), tv_usec: .init((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    private func write(_ fd: Int32, _ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = systemSend(fd, raw.baseAddress! + offset, raw.count - offset, noSignal)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ClickHouseError.transport("sending to \(host):\(port) failed: \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
    }

    private func readAll(_ fd: Int32) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return bytes }
            if n < 0 {
                if errno == EINTR { continue }
                throw ClickHouseError.transport("reading from \(host):\(port) failed: \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: buffer[0..<n])
        }
    }

    /// Splits a complete HTTP/1.1 answer into status, headers and body (chunked coding undone).
    static func parse(_ bytes: [UInt8]) throws -> Response {
        guard let end = find([13, 10, 13, 10], in: bytes, from: 0) else {
            throw ClickHouseError.transport("the answer ended inside its headers (\(bytes.count) bytes)")
        }
        let head = String(decoding: bytes[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw ClickHouseError.transport("not an HTTP answer: \(head.prefix(80))")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        } else if let length = headers["content-length"].flatMap(Int.init) {
            guard body.count >= length else { throw ClickHouseError.transport("the answer ended after \(body.count) of \(length) bytes") }
            body = Array(body[0..<length])
        }
        return Response(status: status, headers: headers, body: Data(body))
    }

    private static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        while true {
            guard let lineEnd = find([13, 10], in: bytes, from: offset) else {
                throw ClickHouseError.transport("a chunked answer ended early")
            }
            let sizeText = String(decoding: bytes[offset..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw ClickHouseError.transport("bad chunk size \"\(sizeText.prefix(20))\"")
            }
            offset = lineEnd + 2
            if size == 0 { return out }
            guard offset + size <= bytes.count else { throw ClickHouseError.transport("a chunk ended early") }
            out.append(contentsOf: bytes[offset..<(offset + size)])
            offset += size + 2
        }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var i = start
        while i <= bytes.count - needle.count {
            if bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}
