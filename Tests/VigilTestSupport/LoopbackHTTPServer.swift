import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 for tests that need a real socket peer: one thread
/// per connection, keep-alive, `Content-Length` bodies, `Expect: 100-continue`. The handler
/// decides each answer, including never answering and dropping the connection, so tests can
/// inject the failures a real network has.
///
/// Not for production: no TLS, no chunked request bodies, bounded sizes (64 KiB of headers,
/// 64 MiB of body).
public final class LoopbackHTTPServer: @unchecked Sendable {
    /// One request as received.
    public struct Request: Sendable {
        public var method: String
        /// The request target, e.g. `/api/v1/events`.
        public var path: String
        /// Header fields, names lowercased.
        public var headers: [String: String]
        public var body: Data
    }

    /// How to answer a request.
    public enum Reply: Sendable {
        /// A normal response; `Content-Length` is added.
        case respond(status: Int, headers: [String: String], body: Data)
        /// Never answer; the connection stays open until the client gives up.
        case hang
        /// Close the connection without answering.
        case close
    }

    /// The port the server listens on.
    public let port: UInt16
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var connections: Set<Int32> = []
    private var stopped = false
    private let acceptFinished = DispatchSemaphore(value: 0)

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts listening on a free loopback port.
    public init(handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestSupportError("socket() failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw TestSupportError("bind/listen on 127.0.0.1 failed: errno \(errno)")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting, closes every connection and waits for the accept thread.
    public func stop() {
        lock.lock()
        guard !stopped else { lock.unlock(); return }
        stopped = true
        let open = connections
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        acceptFinished.wait()
    }

    deinit { stop() }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                break
            }
            lock.lock()
            if stopped {
                lock.unlock()
                close(fd)
                break
            }
            connections.insert(fd)
            lock.unlock()
            Thread.detachNewThread { [self] in serve(fd) }
        }
        acceptFinished.signal()
    }

    private func serve(_ fd: Int32) {
        defer {
            lock.lock()
            connections.remove(fd)
            lock.unlock()
            close(fd)
        }
        var buffer = Data()
        while true {
            guard let headerEnd = readUntilHeaderEnd(fd, &buffer) else { return }
            let head = String(decoding: buffer[buffer.startIndex..<headerEnd], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex..<(headerEnd + 4))
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count >= 2 else { return }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? -1
            guard length >= 0, length <= 64 << 20 else { return }
            if headers["expect"]?.lowercased() == "100-continue", buffer.count < length {
                guard write(fd, Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
            }
            while buffer.count < length {
                guard readMore(fd, &buffer) else { return }
            }
            let body = buffer.prefix(length)
            buffer.removeSubrange(buffer.startIndex..<(buffer.startIndex + length))
            let request = Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: Data(body))
            switch handler(request) {
            case .close:
                return
            case .hang:
                // Hold the connection until the client closes it or the server stops.
                var sink = Data()
                while readMore(fd, &sink) { sink.removeAll() }
                return
            case .respond(let status, let extra, let body):
                var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: \(body.count)\r\n"
                for (name, value) in extra { head += "\(name): \(value)\r\n" }
                head += "\r\n"
                guard write(fd, Data(head.utf8) + body) else { return }
            }
        }
    }

    /// Reads until `\r\n\r\n`; returns its offset from the buffer's start, or `nil` on EOF,
    /// error or oversized headers.
    private func readUntilHeaderEnd(_ fd: Int32, _ buffer: inout Data) -> Int? {
        let marker = Data("\r\n\r\n".utf8)
        while true {
            if let range = buffer.range(of: marker) { return range.lowerBound }
            guard buffer.count < 64 * 1024, readMore(fd, &buffer) else { return nil }
        }
    }

    private func readMore(_ fd: Int32, _ buffer: inout Data) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count < 0 && errno == EINTR { continue }
            return false
        }
    }

    private func write(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            guard var pointer = raw.baseAddress else { return true }
            var remaining = raw.count
            while remaining > 0 {
                #if canImport(Glibc)
                let sent = send(fd, pointer, remaining, Int32(MSG_NOSIGNAL))
                #else
                let sent = send(fd, pointer, remaining, 0)
                #endif
                if sent < 0 && errno == EINTR { continue }
                if sent <= 0 { return false }
                pointer += sent
                remaining -= sent
            }
            return true
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 413: return "Content Too Large"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}
