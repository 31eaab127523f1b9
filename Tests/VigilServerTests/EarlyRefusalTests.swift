import Foundation
import Testing
import VigilTestSupport
@testable import VigilServer
#if canImport(Glibc)
import Glibc
#endif

/// Credentials are checked when a request's headers arrive, before any of its body is read;
/// slow and greedy clients cannot hold the server's connections.
@Suite("Refusals before the body")
struct EarlyRefusalTests {
    /// A gzip body that inflates to `members` × 64 MiB of zeros: `members` gzip members one
    /// after the other (RFC 1952 §2.2), about 64 KiB each.
    private static func gzipBomb(members: Int) throws -> Data {
        let member = try GzipDeflater.compress(Data(count: 64 << 20), level: 9)
        var bomb = Data(capacity: member.count * members)
        for _ in 0..<members { bomb.append(member) }
        return bomb
    }

    @Test("a gzip upload that inflates to 2 GiB, sent without the admin token, is refused with 401 before a byte of it is read")
    func gzipBombWithoutTokenIsNeverRead() throws {
        let server = try TestServer(.sqlite)
        let spool = server.app.context.options.spoolDirectory
        let bomb = try Self.gzipBomb(members: 32)
        let head = "POST /api/v1/symbols HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Encoding: gzip\r\n"
            + "Content-Type: application/octet-stream\r\nContent-Length: \(bomb.count)\r\n\r\n"
        let connection = try RawConnection(port: server.app.port)
        let started = DispatchTime.now().uptimeNanoseconds
        try connection.send(Data(head.utf8))
        // The client does not wait: it starts sending the body at once, as most do.
        _ = try? connection.send(bomb.prefix(256 * 1024))
        let answer = try connection.readUntilClosed()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer.prefix(200))")
        #expect(answer.lowercased().contains("www-authenticate: bearer"))
        #expect(server.app.http.bodyBytesReceived == 0, "the server read none of the body")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty, "no spool file was made")
        // Generous: the refusal needs no body, so it does not wait for one.
        #expect(seconds < 5, "answered in \(seconds) s")
        // The same for an unknown ingest key on events, and a wrong token on symbols.
        for (path, credential) in [("/api/v1/events", "Bearer vk_not_a_key"), ("/api/v1/symbols", "Bearer va_wrong")] {
            let other = try RawConnection(port: server.app.port)
            try other.send(Data(("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(credential)\r\n"
                                 + "Content-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n\r\n").utf8))
            _ = try? other.send(bomb.prefix(64 * 1024))
            #expect(try other.readUntilClosed().hasPrefix("HTTP/1.1 401"))
        }
        #expect(server.app.http.bodyBytesReceived == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty)
    }

    @Test("Expect: 100-continue without credentials is answered 401, never 100 Continue; with them, 100 Continue")
    func expectContinueNeedsCredentials() throws {
        let server = try TestServer(.sqlite)
        for path in ["/api/v1/events", "/api/v1/symbols"] {
            let refused = try RawConnection(port: server.app.port)
            try refused.send(Data(("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n"
                                   + "Content-Type: application/json\r\nExpect: 100-continue\r\n\r\n").utf8))
            let answer = try refused.readUntilClosed()
            #expect(answer.hasPrefix("HTTP/1.1 401"), "\(path): \(answer.prefix(200))")
            #expect(!answer.contains("100 Continue"))
            #expect(answer.lowercased().contains("www-authenticate"))
        }
        for (path, credential) in [("/api/v1/events", server.ingestKey), ("/api/v1/symbols", TestServer.adminToken)] {
            let admitted = try RawConnection(port: server.app.port)
            try admitted.send(Data(("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n"
                                    + "Authorization: Bearer \(credential)\r\nContent-Type: application/json\r\n"
                                    + "Expect: 100-continue\r\n\r\n").utf8))
            #expect(try admitted.readHead().hasPrefix("HTTP/1.1 100 Continue"), "\(path)")
        }
        #expect(server.app.http.bodyBytesReceived == 0)
    }

    @Test("200 slow connections from one address: the address's limit refuses most, header deadlines end the rest, others are served")
    func slowConnectionsFromOneAddress() throws {
        var router = HTTPRouter()
        router.add("GET", "/hello") { _ in .text("hello") }
        let configuration = HTTPServerConfiguration(threads: 2, connectionsPerAddress: 16, headerTimeoutSeconds: 1)
        let server = try HTTPServer(configuration: configuration, router: router)
        defer { server.stop() }
        // The slow client comes from 127.0.0.2 (all of 127/8 is loopback); the others from 127.0.0.1.
        var slow: [RawConnection] = []
        for _ in 0..<200 {
            let connection = try RawConnection(port: server.port, source: "127.0.0.2")
            // Headers begun, never finished.
            _ = try? connection.send(Data("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
            slow.append(connection)
        }
        let client = HTTPTestClient(port: server.port)
        for _ in 0..<20 { #expect(try client.get("/hello").status == 200) }
        // Keep trickling a header line now and then, as slowloris does, for twice the timeout.
        let until = Date().addingTimeInterval(2.5)
        var trickle = 0
        while Date() < until {
            trickle += 1
            for connection in slow where !connection.isClosed { _ = try? connection.send(Data("X-Slow-\(trickle): 1\r\n".utf8)) }
            #expect(try client.get("/hello").status == 200)
            Thread.sleep(forTimeInterval: 0.2)
        }
        let refused = server.refusedConnections
        #expect(refused.perAddressLimit == 184, "\(refused)")
        #expect(refused.headerTimeouts >= 16, "\(refused)")
        // Every slow connection has been closed by the server: 429 for the refused, nothing for the rest.
        var tooMany = 0
        for connection in slow {
            let answer = try connection.readUntilClosed()
            if answer.hasPrefix("HTTP/1.1 429") { tooMany += 1 } else { #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 4")) }
        }
        #expect(tooMany >= 150, "most refused connections read their 429 (\(tooMany))")
        let slowAddress = try #require(ConnectionRegistry.Address(loopback: "127.0.0.2"))
        #expect(waitFor { server.registryConnections(from: slowAddress) == 0 })
        #expect(try client.get("/hello").status == 200)
    }

    @Test("a body slower than the pacing allows ends its connection")
    func slowBodyIsDropped() throws {
        var router = HTTPRouter()
        router.add("POST", "/sink", body: BodyPolicy(maxBytes: 1 << 20)) { request in .text("\(request.bodyData.count)") }
        let configuration = HTTPServerConfiguration(threads: 1, bodyPacing: BodyPacing(graceSeconds: 0.5, minimumBytesPerSecond: 100))
        let server = try HTTPServer(configuration: configuration, router: router)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try connection.send(Data("POST /sink HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n".utf8))
        // 10 bytes every 0.3 s: far under 100 bytes/s once the half second of grace is over.
        for _ in 0..<15 where !connection.isClosed {
            if (try? connection.send(Data(repeating: 65, count: 10))) == nil { break }
            Thread.sleep(forTimeInterval: 0.3)
        }
        let answer = try connection.readUntilClosed()
        #expect(!answer.contains("200 OK"), "the handler never ran: \(answer.prefix(100))")
        #expect(server.bodyBytesReceived < 1000)
        // At pace, the same body is accepted.
        let paced = try HTTPTestClient(port: server.port).post("/sink", Data(repeating: 65, count: 1000))
        #expect(paced.text == "1000")
    }

    @Test("body pacing allows the grace period, then the minimum rate on average")
    func bodyPacingRule() {
        let pacing = BodyPacing(graceSeconds: 20, minimumBytesPerSecond: 4096)
        #expect(pacing.allows(received: 0, seconds: 19.9))
        #expect(!pacing.allows(received: 0, seconds: 20.1))
        #expect(pacing.allows(received: 4096 * 10, seconds: 29.9))
        #expect(!pacing.allows(received: 4096 * 10, seconds: 30.1))
        #expect(BodyPacing(graceSeconds: 0, minimumBytesPerSecond: 0).allows(received: 0, seconds: 1e9))
    }
}

extension ConnectionRegistry.Address {
    /// An IPv4 literal's address; for tests.
    init?(loopback text: String) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else { return nil }
        let made = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ConnectionRegistry.Address($0) }
        }
        guard let made else { return nil }
        self = made
    }
}

extension HTTPServer {
    /// Connections `address` holds open now; for tests.
    func registryConnections(from address: ConnectionRegistry.Address) -> Int { connectionRegistry.connections(from: address) }
}

/// Polls `condition` every 20 ms for up to 5 s.
private func waitFor(_ condition: () throws -> Bool) rethrows -> Bool {
    for _ in 0..<250 {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

/// One client socket to the server, written and read by hand: what a client that does not
/// wait for the answer, or sends slowly, does.
final class RawConnection {
    private let descriptor: Int32
    private(set) var isClosed = false
    private var buffered = Data()

    /// Connects to `127.0.0.1:port`, from `source` (a loopback address) when given.
    init(port: UInt16, source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(descriptor); throw TestSupportError("bind \(source): errno \(errno)") }
        }
        let connected = LoopbackPort.connect(descriptor, to: port)
        guard connected == 0 else { close(descriptor); throw TestSupportError("connect: errno \(errno)") }
    }

    deinit { close(descriptor) }

    /// Writes all of `data`; throws when the server closed or reset the connection.
    func send(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    isClosed = true
                    throw TestSupportError("send: errno \(errno)")
                }
                offset += sent
            }
        }
    }

    /// Reads until the server closes the connection (or resets it, or 10 s pass); what arrived.
    func readUntilClosed() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            buffered.append(contentsOf: buffer[0..<count])
        }
        isClosed = true
        return String(decoding: buffered, as: UTF8.self)
    }

    /// Reads until the end of one response head (`\r\n\r\n`).
    func readHead() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: buffered, as: UTF8.self).contains("\r\n\r\n") {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { throw TestSupportError("closed before a response head (errno \(errno))") }
            buffered.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: buffered, as: UTF8.self)
    }
}

/// The registry's bookkeeping on real sockets, with the clock passed in.
@Suite("Connection registry")
struct ConnectionRegistryTests {
    /// A connected pair of stream sockets: the server's end and the client's.
    private static func socketPair() throws -> (server: Int32, client: Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { throw TestSupportError("socketpair: errno \(errno)") }
        return (ends[0], ends[1])
    }

    @Test("an address holds at most its limit; a closed connection frees its place; a reused number releases the old entry")
    func perAddressLimit() throws {
        let registry = ConnectionRegistry(perAddressLimit: 2, headerTimeoutSeconds: 0)
        let a = ConnectionRegistry.Address(high: 0, low: 1), b = ConnectionRegistry.Address(high: 0, low: 2)
        #expect(registry.register(10, address: a, now: 0))
        #expect(registry.register(11, address: a, now: 0))
        #expect(!registry.register(12, address: a, now: 0))
        #expect(registry.register(12, address: b, now: 0))
        #expect(registry.connections(from: a) == 2)
        registry.unregister(11)
        #expect(registry.connections(from: a) == 1)
        // Number 10 comes back from accept: its old connection was dropped without a report.
        #expect(registry.register(10, address: b, now: 0))
        #expect(registry.connections(from: a) == 0)
        #expect(registry.connections(from: b) == 2)
        #expect(registry.counts.refused == 1)
    }

    @Test("overdue headers shut the connection down; arrived headers and a new request reset the deadline")
    func headerDeadlines() throws {
        let registry = ConnectionRegistry(perAddressLimit: 0, headerTimeoutSeconds: 1)
        let (late, lateClient) = try Self.socketPair()
        let (prompt, promptClient) = try Self.socketPair()
        defer { [late, lateClient, prompt, promptClient].forEach { close($0) } }
        #expect(registry.register(late, address: nil, now: 0))
        #expect(registry.register(prompt, address: nil, now: 0))
        registry.headersArrived(prompt)
        #expect(registry.nextDeadline() == 1_000_000_000)
        #expect(registry.expire(now: 999_999_999) == 0)
        #expect(registry.expire(now: 1_000_000_000) == 1)
        // The late client reads end of file; the prompt one's socket is untouched.
        var byte: UInt8 = 0
        #expect(recv(lateClient, &byte, 1, 0) == 0)
        #expect(recv(promptClient, &byte, 1, Int32(MSG_DONTWAIT)) == -1 && errno == EAGAIN)
        // After its answer, the prompt connection's next headers are due a second later.
        registry.awaitHeaders(prompt, now: 5_000_000_000)
        #expect(registry.nextDeadline() == 6_000_000_000)
        registry.unregister(prompt)
        #expect(registry.nextDeadline() == nil)
        #expect(registry.counts.expired == 1)
    }
}
