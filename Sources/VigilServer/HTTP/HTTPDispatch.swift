import CMicroHTTPD
import Foundation
import Synchronization

/// The Swift side of the server's C callbacks: opens a request when its headers arrive,
/// answers at once when the route, method, encoding or declared length rule it out, and runs
/// the handler once the body is complete.
final class HTTPDispatch: Sendable {
    let router: HTTPRouter
    let observer: (@Sendable (String, Int, Double) -> Void)?

    /// See ``HTTPServerConfiguration/handlerNice``.
    let handlerNice: Int32
    /// The slowest a body may arrive before its connection is dropped.
    let pacing: BodyPacing
    /// Body bytes libmicrohttpd has handed over, for every request so far.
    let bodyBytes = ByteTally()

    /// The server's connections: addresses and header deadlines.
    let registry: ConnectionRegistry

    init(router: HTTPRouter, observer: (@Sendable (String, Int, Double) -> Void)?, handlerNice: Int32 = 0,
         pacing: BodyPacing = BodyPacing(), registry: ConnectionRegistry = ConnectionRegistry(perAddressLimit: 0, headerTimeoutSeconds: 0)) {
        self.router = router
        self.observer = observer
        self.handlerNice = handlerNice
        self.pacing = pacing
        self.registry = registry
    }

    /// What to do after the headers.
    enum Start {
        /// Answer now; the body (if any) is not read.
        case answer(HTTPResponse)
        /// Receive the body into this state.
        case receive(RequestState)
    }

    func begin(connection: OpaquePointer, method: String, path: String) -> Start {
        let started = DispatchTime.now().uptimeNanoseconds
        if handlerNice > 0 { Self.lowerPriority(to: handlerNice) }

        switch router.match(method: method, path: path) {
        case .notFound:
            return early(.notFound("no endpoint \(method) \(path)"), started: started)
        case .methodNotAllowed(let allowed):
            let error = HTTPError(status: 405, code: "method_not_allowed",
                                  reason: "\(path) accepts \(allowed.joined(separator: ", ")), not \(method)",
                                  headers: [("Allow", allowed.joined(separator: ", "))])
            return early(error, started: started)
        case .found(let route, let parameters):
            let headers = ValueCollector.collect(connection, kind: .HEADER_KIND, lowercaseKeys: true, joinRepeats: true)
            let query = ValueCollector.collect(connection, kind: .GET_ARGUMENT_KIND, lowercaseKeys: false, joinRepeats: false)
            var authorization: (any Sendable)?
            if let authorize = route.authorize {
                // Before anything about the body is looked at: a request without credentials
                // learns nothing of the limits, and none of its body is read or decoded.
                do {
                    authorization = try authorize(HTTPRequest(method: method, path: path, query: query, headers: headers,
                                                              pathParameters: parameters))
                } catch let error as HTTPError {
                    return early(error, route: route, started: started)
                } catch {
                    return early(HTTPError(status: 503, code: "unavailable", reason: "cannot check the credentials: \(error)"),
                                 route: route, started: started)
                }
            }
            let policy = route.body
            var gzip = false
            if let encoding = headers["content-encoding"]?.trimmingCharacters(in: CharacterSet.whitespaces).lowercased(),
               !encoding.isEmpty, encoding != "identity" {
                guard encoding == "gzip", policy.acceptsGzip else {
                    return early(.unsupportedMediaType(
                        "Content-Encoding \"\(encoding.prefix(40))\" is not supported here"
                            + (policy.acceptsGzip ? "; send identity or gzip" : "; send the body uncompressed")),
                        route: route, started: started)
                }
                gzip = true
            }
            var refusal: HTTPError?
            if let lengthText = headers["content-length"], let length = Int64(lengthText), length > policy.maxBytes {
                let tooLarge = HTTPError.tooLarge(
                    "the body is \(length) bytes; this endpoint accepts at most \(policy.maxBytes)")
                // A client that asked for `100-continue` is told before it sends the body. One
                // that is already sending a modestly oversized body has it read and dropped, so it
                // sees the 413 instead of a connection reset mid-upload; an absurd size is
                // answered at once.
                let expectsContinue = headers["expect"]?.lowercased().contains("100-continue") == true
                if expectsContinue || length > policy.drainLimit {
                    return early(tooLarge, route: route, started: started)
                }
                refusal = tooLarge
            }
            do {
                let state = try RequestState(route: route, parameters: parameters, method: method, path: path,
                                             headers: headers, query: query, gzip: gzip, started: started,
                                             refusal: refusal, authorization: authorization, pacing: pacing,
                                             counter: bodyBytes)
                return .receive(state)
            } catch {
                return early(HTTPError(status: 500, code: "internal_error", reason: "cannot receive the body: \(error)"),
                             route: route, started: started)
            }
        }
    }

    func finish(_ state: RequestState, connection: OpaquePointer) -> MHD_Result {
        let response: HTTPResponse
        if let failure = state.failure {
            response = .error(failure)
        } else {
            do {
                let request = try state.makeRequest()
                response = try state.route.handler(request)
            } catch let error as HTTPError {
                response = .error(error)
            } catch {
                response = .error(HTTPError(status: 500, code: "internal_error", reason: String(describing: error)))
            }
        }
        observe(state.route.name, response.status, started: state.started)
        return Self.queue(response, on: connection)
    }

    /// Sets the calling thread's nice value: on Linux the nice value is per thread, and
    /// `PRIO_PROCESS` with id 0 names the caller. Elsewhere it would be the whole process's, so
    /// nothing changes there. Idempotent; a failure leaves it as it was.
    static func lowerPriority(to nice: Int32) {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
        #endif
    }

    private func early(_ error: HTTPError, route: HTTPRoute? = nil, started: UInt64) -> Start {
        observe(route?.name ?? "-", error.status, started: started)
        return .answer(.error(error))
    }

    private func observe(_ name: String, _ status: Int, started: UInt64) {
        guard let observer else { return }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        observer(name, status, seconds)
    }

    // One byte that is never written after creation: the buffer for empty bodies, since a
    // Data with no bytes may have no base address.
    nonisolated(unsafe) private static let emptyBody: UnsafeMutableRawPointer = {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        pointer.storeBytes(of: 0, as: UInt8.self)
        return pointer
    }()

    /// Hands `response` to libmicrohttpd (which copies the body) on `connection`.
    static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        response.body.withUnsafeBytes { raw -> MHD_Result in
            let pointer = raw.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) } ?? emptyBody
            let mode: MHD_ResponseMemoryMode = raw.count == 0 ? .RESPMEM_PERSISTENT : .RESPMEM_MUST_COPY
            guard let handle = MHD_create_response_from_buffer(raw.count, pointer, mode) else {
                return MHD_Result.NO
            }
            defer { MHD_destroy_response(handle) }
            for (name, value) in response.headers {
                // libmicrohttpd refuses header values with line breaks; such a header is dropped.
                _ = MHD_add_response_header(handle, name, value)
            }
            return MHD_queue_response(connection, UInt32(clamping: response.status), handle)
        }
    }
}

/// One request between its headers and its answer: owned by the worker thread serving its
/// connection, so it needs no lock.
final class RequestState {
    let route: HTTPRoute
    let parameters: [String: String]
    let method: String
    let path: String
    let headers: [String: String]
    let query: [String: String]
    let started: UInt64
    /// A rejection decided while the body arrived (too large, bad gzip); answered at the end.
    private(set) var failure: HTTPError?
    private var received: Int64 = 0
    private var stored: Int64 = 0
    private var inflater: GzipInflater?
    private var memory = Data()
    private var file: (url: URL, descriptor: Int32)?
    private let authorization: (any Sendable)?
    private let pacing: BodyPacing
    private let counter: ByteTally?

    init(route: HTTPRoute, parameters: [String: String], method: String, path: String,
         headers: [String: String], query: [String: String], gzip: Bool, started: UInt64,
         refusal: HTTPError? = nil, authorization: (any Sendable)? = nil, pacing: BodyPacing = BodyPacing(),
         counter: ByteTally? = nil) throws {
        self.authorization = authorization
        self.pacing = pacing
        self.counter = counter
        self.route = route
        self.parameters = parameters
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.started = started
        if let refusal {
            // The body is only drained: no inflater, no file, no buffer.
            failure = refusal
            return
        }
        if gzip { inflater = try GzipInflater(limit: route.body.maxDecodedBytes) }
        if case .temporaryFile(let directory) = route.body.storage {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let url = URL(fileURLWithPath: directory).appendingPathComponent("upload-\(UUID().uuidString)")
            let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw HTTPServerError.socket(operation: "open \(url.path)", errno: errno)
            }
            file = (url, descriptor)
        } else if let length = headers["content-length"].flatMap(Int64.init), length > 0 {
            memory.reserveCapacity(Int(min(length, route.body.maxBytes)))
        }
    }

    /// Takes one piece of the body; returns false when the connection should be dropped
    /// (a client that keeps sending long after its body was refused).
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received += Int64(bytes.count)
        counter?.add(bytes.count)
        if !pacing.allows(received: received, seconds: Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e9) {
            // A sender this slow holds a connection and its worker's attention for nothing.
            return false
        }
        if failure != nil {
            return received <= route.body.drainLimit
        }
        if received > route.body.maxBytes {
            fail(.tooLarge("the body passed \(route.body.maxBytes) bytes, the most this endpoint accepts"))
            return true
        }
        do {
            if let inflater {
                try inflater.feed(bytes) { try store($0) }
            } else {
                try store(bytes)
            }
        } catch let error as GzipError {
            switch error {
            case .tooLarge(let limit):
                fail(.tooLarge("the gzip body inflates past \(limit) bytes, the most this endpoint accepts"))
            case .malformed:
                fail(.badRequest("\(error)", code: "bad_gzip"))
            }
        } catch {
            fail(HTTPError(status: 500, code: "internal_error", reason: "cannot store the body: \(error)"))
        }
        return true
    }

    private func store(_ bytes: UnsafeRawBufferPointer) throws {
        stored += Int64(bytes.count)
        if stored > route.body.maxDecodedBytes {
            throw GzipError.tooLarge(limit: route.body.maxDecodedBytes)
        }
        if let file {
            var offset = 0
            while offset < bytes.count {
                let written = write(file.descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw HTTPServerError.socket(operation: "write \(file.url.lastPathComponent)", errno: errno)
                }
                offset += written
            }
        } else {
            memory.append(contentsOf: bytes)
        }
    }

    private func fail(_ error: HTTPError) {
        failure = error
        memory = Data()
    }

    /// The complete request; checks that a gzip body ended properly.
    func makeRequest() throws -> HTTPRequest {
        if let inflater {
            do {
                try inflater.finish()
            } catch {
                throw HTTPError.badRequest("\(error)", code: "bad_gzip")
            }
        }
        let body: HTTPBody
        if let file {
            close(file.descriptor)
            self.file = (file.url, -1)
            body = .file(file.url, size: stored)
        } else {
            body = .memory(memory)
        }
        return HTTPRequest(method: method, path: path, query: query, headers: headers,
                           pathParameters: parameters, body: body, authorization: authorization)
    }

    /// Releases the body (deleting a spooled file).
    func discard() {
        memory = Data()
        if let file {
            if file.descriptor >= 0 { close(file.descriptor) }
            unlink(file.url.path)
            self.file = nil
        }
    }
}

/// A running total shared between threads (one relaxed atomic add per update).
final class ByteTally: Sendable {
    private let total = Atomic<Int>(0)

    /// Adds `count` bytes.
    func add(_ count: Int) { total.add(count, ordering: .relaxed) }

    /// The total so far.
    var value: Int { total.load(ordering: .relaxed) }
}
