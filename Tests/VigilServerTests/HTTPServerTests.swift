import Foundation
import Synchronization
import Testing
import VigilTestSupport
@testable import VigilServer
#if canImport(Glibc)
import Glibc
#endif

/// The libmicrohttpd wrapper over real loopback sockets.
@Suite("HTTP server")
struct HTTPServerTests {
    private static func makeRouter(spool: String = NSTemporaryDirectory()) -> HTTPRouter {
        var router = HTTPRouter()
        router.add("GET", "/hello/:name") { request in
            .text("hello \(request.pathParameters["name"] ?? "?") q=\(request.query["q"] ?? "")")
        }
        router.add("POST", "/echo", body: BodyPolicy(maxBytes: 1 << 20, maxDecodedBytes: 4 << 20)) { request in
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("bytes"); writer.number(request.bodyData.count)
            writer.key("sum"); writer.number(request.bodyData.reduce(0) { $0 &+ Int($1) })
            writer.key("type"); writer.string(request.mediaType)
            writer.endObject()
            return .json(writer.data)
        }
        router.add("POST", "/spool", body: BodyPolicy(maxBytes: 8 << 20, acceptsGzip: false,
                                                      storage: .temporaryFile(directory: spool))) { request in
            guard case .file(let url, let size) = request.body else { throw HTTPError.badRequest("not spooled") }
            let onDisk = try Data(contentsOf: url)
            return .text("\(size) \(onDisk.count) \(url.path)")
        }
        router.add("GET", "/fail") { _ in throw HTTPError(status: 429, code: "rate_limited", reason: "slow down",
                                                          headers: [("Retry-After", "3")]) }
        return router
    }

    private static func start(spool: String = NSTemporaryDirectory()) throws -> (HTTPServer, HTTPTestClient) {
        let server = try HTTPServer(configuration: HTTPServerConfiguration(threads: 4), router: makeRouter(spool: spool))
        return (server, HTTPTestClient(port: server.port))
    }

    @Test("routes by method and path, passing placeholders and query arguments")
    func routing() throws {
        let (server, client) = try Self.start()
        defer { server.stop() }
        let hello = try client.get("/hello/w%C3%B6rld?q=a%20b")
        #expect(hello.status == 200)
        #expect(hello.text == "hello wörld q=a b")
        let missing = try client.get("/nope")
        #expect(missing.status == 404)
        #expect(missing.json["error"] as? String == "not_found")
        let wrongMethod = try client.send("DELETE", "/echo")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "POST")
    }

    @Test("handlers run at the configured nice value; 0 leaves the pool threads as they started")
    func handlerNice() throws {
        var router = HTTPRouter()
        router.add("GET", "/nice") { _ in
            errno = 0
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            return .text("\(nice) \(errno)")
        }
        let lowered = try HTTPServer(configuration: HTTPServerConfiguration(threads: 2, handlerNice: 7), router: router)
        defer { lowered.stop() }
        let client = HTTPTestClient(port: lowered.port)
        for _ in 0..<4 { #expect(try client.get("/nice").text == "7 0") }
        // This test process's own threads keep their priority: only the pool threads changed.
        let own = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let unchanged = try HTTPServer(configuration: HTTPServerConfiguration(threads: 2, handlerNice: 0), router: router)
        defer { unchanged.stop() }
        #expect(try HTTPTestClient(port: unchanged.port).get("/nice").text == "\(own) 0")
    }

    @Test("a handler's HTTPError becomes its status, headers and JSON reason")
    func errorAnswers() throws {
        let (server, client) = try Self.start()
        defer { server.stop() }
        let answer = try client.get("/fail")
        #expect(answer.status == 429)
        #expect(answer.headers["retry-after"] == "3")
        #expect(answer.json["reason"] as? String == "slow down")
    }

    @Test("plain and gzip bodies reach the handler byte for byte")
    func bodies() throws {
        let (server, client) = try Self.start()
        defer { server.stop() }
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let expectedSum = body.reduce(0) { $0 &+ Int($1) }
        let plain = try client.post("/echo", body, headers: ["Content-Type": "application/json; charset=utf-8"])
        #expect(plain.status == 200)
        #expect(plain.json["bytes"] as? Int == body.count)
        #expect(plain.json["sum"] as? Int == expectedSum)
        #expect(plain.json["type"] as? String == "application/json")
        let gzip = try client.post("/echo", try GzipDeflater.compress(body), headers: ["Content-Encoding": "gzip"])
        #expect(gzip.status == 200)
        #expect(gzip.json["bytes"] as? Int == body.count)
        #expect(gzip.json["sum"] as? Int == expectedSum)
        let chunked = try client.send("POST", "/echo", body: body, stream: true)
        #expect(chunked.json["bytes"] as? Int == body.count)
    }

    @Test("bodies over the limit are refused with 413: declared, chunked, and inflated (gzip bomb)")
    func limits() throws {
        let (server, client) = try Self.start()
        defer { server.stop() }
        let big = Data(count: (1 << 20) + 1)
        let declared = try client.post("/echo", big)
        #expect(declared.status == 413)
        #expect(declared.json["error"] as? String == "body_too_large")
        let chunked = try client.send("POST", "/echo", body: big, stream: true)
        #expect(chunked.status == 413)
        // 64 MiB of zeros compress to about 64 KiB: far under the 1 MiB wire limit, far over the
        // 4 MiB inflated limit.
        let bomb = try GzipDeflater.compress(Data(count: 64 << 20), level: 9)
        #expect(bomb.count < 1 << 20)
        let inflated = try client.post("/echo", bomb, headers: ["Content-Encoding": "gzip"])
        #expect(inflated.status == 413)
        #expect((inflated.json["reason"] as? String)?.contains("inflates past") == true)
        // The server still answers normally afterwards.
        #expect(try client.get("/hello/x").status == 200)
    }

    @Test("a declared oversized body is read and dropped, so the client gets the 413 rather than a reset")
    func oversizedBodiesAreDrained() throws {
        let (server, client) = try Self.start()
        defer { server.stop() }
        let big = Data(count: (1 << 20) + 300_000)
        for _ in 0..<8 {
            let answer = try client.post("/echo", big)
            #expect(answer.status == 413)
            #expect((answer.json["reason"] as? String)?.contains("accepts at most") == true)
        }
    }

    @Test("a client that expects 100-continue is refused before it sends an oversized body")
    func expectContinueIsRefusedEarly() throws {
        let (server, _) = try Self.start()
        defer { server.stop() }
        let head = "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10737418240\r\n"
            + "Expect: 100-continue\r\nConnection: close\r\n\r\n"
        let answer = try Self.rawExchange(port: server.port, request: Data(head.utf8))
        #expect(answer.hasPrefix("HTTP/1.1 413"))
        #expect(!answer.contains("100 Continue"))
        #expect(answer.contains("body_too_large"))
    }

    /// Writes `request` on a fresh loopback connection and reads until the server closes it.
    private static func rawExchange(port: UInt16, request: Data) throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError("socket: errno \(errno)") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestSupportError("connect: errno \(errno)") }
        let sent = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { throw TestSupportError("send: errno \(errno)") }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: answer, as: UTF8.self)
    }

    @Test("corrupt or truncated gzip is a 400 and an unknown encoding a 415")
    func badEncodings() throws {
        let (server, client) = try Self.start()
        defer { server.stop() }
        let good = try GzipDeflater.compress(Data("{\"a\":1}".utf8))
        let truncated = try client.post("/echo", good.prefix(good.count - 4), headers: ["Content-Encoding": "gzip"])
        #expect(truncated.status == 400)
        #expect(truncated.json["error"] as? String == "bad_gzip")
        let garbage = try client.post("/echo", Data("not gzip at all".utf8), headers: ["Content-Encoding": "gzip"])
        #expect(garbage.status == 400)
        let brotli = try client.post("/echo", Data("x".utf8), headers: ["Content-Encoding": "br"])
        #expect(brotli.status == 415)
        let spoolGzip = try client.post("/spool", good, headers: ["Content-Encoding": "gzip"])
        #expect(spoolGzip.status == 415)
    }

    @Test("a spooled body is a temporary file the server deletes after answering")
    func spooledBody() throws {
        let spool = try TemporaryDirectory(prefix: "spool")
        let (server, client) = try Self.start(spool: spool.url.path)
        defer { server.stop() }
        let body = Data(repeating: 7, count: 2 << 20)
        let answer = try client.post("/spool", body)
        #expect(answer.status == 200)
        let parts = answer.text.split(separator: " ")
        #expect(parts.count == 3)
        #expect(parts.first == "\(body.count)")
        #expect(parts.dropFirst().first == "\(body.count)")
        // The file is deleted when libmicrohttpd reports the request complete, which may come
        // just after the client has read the answer; stopping the daemon waits for that callback.
        server.stop()
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: spool.url.path)
        #expect(leftovers.isEmpty)
    }

    @Test("concurrent clients are all served by the thread pool")
    func concurrentClients() throws {
        let (server, client) = try Self.start()
        defer { server.stop() }
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in 0..<25 {
                let body = Data(repeating: UInt8(worker), count: 1000 + index)
                let answer = try? client.post("/echo", body)
                if answer?.json["bytes"] as? Int != body.count { failures.add() }
            }
        }
        #expect(failures.value == 0)
    }

    @Test("each new connection goes to the worker with the fewest, whatever its socket number; a closed one frees its worker")
    func connectionsGoToTheLeastLoadedWorker() throws {
        let server = try HTTPServer(configuration: HTTPServerConfiguration(threads: 4), router: Self.makeRouter())
        defer { server.stop() }
        var connections: [KeepAliveConnection] = []
        var spacers: [FileHandle] = []
        defer { spacers.forEach { try? $0.close() } }
        for index in 0..<4 {
            // Descriptors opened between connections, as database connections and files are.
            for _ in 0..<(index + 1) { spacers.append(try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))) }
            let connection = try KeepAliveConnection(port: server.port)
            #expect(try connection.get("/hello/w\(index)").hasSuffix("hello w\(index) q="))
            connections.append(connection)
        }
        #expect(server.workerLoads == [1, 1, 1, 1])
        connections[2].close()
        #expect(try waitUntil { server.workerLoads.reduce(0, +) == 3 }, "the close reached the worker's count")
        let freed = try #require(server.workerLoads.firstIndex(of: 0))
        let next = try KeepAliveConnection(port: server.port)
        _ = try next.get("/hello/again")
        #expect(server.workerLoads[freed] == 1)
        #expect(server.workerLoads == [1, 1, 1, 1])
    }

    @Test("a handler that blocks holds up only its own connection's worker")
    func blockedHandlerLeavesOtherConnectionsServed() throws {
        let release = DispatchSemaphore(value: 0)
        var router = Self.makeRouter()
        router.add("GET", "/block") { _ in
            release.wait()
            return .text("released")
        }
        let server = try HTTPServer(configuration: HTTPServerConfiguration(threads: 2), router: router)
        defer { server.stop() }
        let blocked = try KeepAliveConnection(port: server.port)
        let other = try KeepAliveConnection(port: server.port)
        _ = try blocked.get("/hello/a")
        _ = try other.get("/hello/b")
        let blockedAnswer = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            blockedAnswer.withLock { $0 = try? blocked.get("/block") }
            done.signal()
        }
        // While /block holds its worker, the other connection is answered, again and again.
        for index in 0..<5 { #expect(try other.get("/hello/n\(index)").hasSuffix("hello n\(index) q=")) }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(blockedAnswer.withLock { $0 }?.hasSuffix("released") == true)
    }

    @Test("a second server cannot bind the same port and says why")
    func bindConflict() throws {
        let (server, _) = try Self.start()
        defer { server.stop() }
        #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(configuration: HTTPServerConfiguration(port: server.port), router: HTTPRouter())
        }
        #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(configuration: HTTPServerConfiguration(bindAddress: "not-an-ip"), router: HTTPRouter())
        }
    }
}

/// A thread-safe counter for tests that fan out over threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ amount: Int = 1) { lock.lock(); count += amount; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// A thread-safe list for tests that fan out over threads.
final class Collected<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []
    func append(_ element: Element) { lock.lock(); storage.append(element); lock.unlock() }
    var items: [Element] { lock.lock(); defer { lock.unlock() }; return storage }
}

/// A failure of the test's own socket code.
private struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every 10 ms for up to 5 s.
private func waitUntil(_ condition: () throws -> Bool) rethrows -> Bool {
    for _ in 0..<500 {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}

/// One persistent HTTP/1.1 connection over a plain socket, one request at a time: the
/// connection stays with the worker it was given, which URLSession's pooling would hide.
private final class KeepAliveConnection: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: errno \(errno)") }
        let connected = LoopbackPort.connect(descriptor, to: port)
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw TestFailure("connect: errno \(errno)")
        }
    }

    deinit { close() }

    private var closed = false

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(descriptor)
    }

    /// Sends `GET path` and returns the status line and body, joined by a space.
    func get(_ path: String) throws -> String {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw TestFailure("send: errno \(errno)")
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while true {
            if buffer.count >= 4 { headEnd = (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(separator) } }
            if headEnd != nil { break }
            try fill()
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        let length = head.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "content-length"
                ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
        }.first ?? 0
        let start = headEnd! + 4
        while buffer.count < start + length { try fill() }
        let body = String(decoding: buffer[start..<(start + length)], as: UTF8.self)
        buffer.removeFirst(start + length)
        return (head.split(separator: "\r\n").first.map(String.init) ?? "") + " " + body
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw TestFailure("connection closed (errno \(errno))") }
        buffer += chunk[0..<count]
    }
}
