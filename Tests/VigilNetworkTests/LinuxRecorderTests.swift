#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import Testing
@testable import Vigil
import VigilCore
import VigilTestSupport

/// End-to-end tests of the Linux `URLProtocol` recorder against a real loopback server with
/// scripted delays and failures. Each test has its own recorder and configuration (its own
/// protocol slot), so they run in parallel.
@Suite("Linux URLProtocol recorder, end to end")
struct LinuxRecorderTests {
    /// What the scripted server answers, by path.
    static func script(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        let path = request.path.split(separator: "?").first.map(String.init) ?? request.path
        switch path {
        case "/users/42":
            Thread.sleep(forTimeInterval: 0.150)
            return .respond(status: 200, headers: ["Content-Type": "application/json"], body: Data(repeating: 0x61, count: 1000))
        case "/orders/9fceb02d0ae598e95dc970b74767f19372d61af8/items":
            return .respond(status: 404, headers: [:], body: Data("not found\n".utf8))
        case "/slow/7":
            Thread.sleep(forTimeInterval: 0.120)
            return .respond(status: 503, headers: ["Retry-After": "1"], body: Data("busy".utf8))
        case "/upload/5":
            return .respond(status: 201, headers: [:], body: Data("got \(request.body.count)".utf8))
        case "/echo-trace":
            return .respond(status: 200, headers: [:], body: Data((request.headers["traceparent"] ?? "none").utf8))
        case "/redirect/3":
            return .respond(status: 302, headers: ["Location": "/users/42"], body: Data())
        case "/drop":
            return .close
        case "/hang":
            return .hang
        case "/file/77":
            return .respond(status: 200, headers: [:], body: Data(repeating: 0x62, count: 70_000))
        default:
            return .respond(status: 200, headers: [:], body: Data("ok".utf8))
        }
    }

    /// How long the server's handler really took for each request, in ms, in arrival order (a
    /// loaded machine wakes its scripted sleeps late).
    final class HandlerTimes: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [Double] = []

        func add(_ milliseconds: Double) { lock.lock(); times.append(milliseconds); lock.unlock() }
        var last: Double? { lock.lock(); defer { lock.unlock() }; return times.last }
    }

    /// A recorder keeping every request, its payloads, and an instrumented and a plain session.
    struct Fixture {
        let server: LoopbackHTTPServer
        let recorder: NetworkRecorder
        let payloads = RecordedPayloads()
        let handlerTimes = HandlerTimes()
        let instrumented: URLSession
        let plain: URLSession

        init(configure: (inout NetworkConfiguration) -> Void = { _ in }) throws {
            let handlerTimes = self.handlerTimes
            server = try LoopbackHTTPServer { request in
                let started = DispatchTime.now().uptimeNanoseconds
                let reply = LinuxRecorderTests.script(request)
                handlerTimes.add(Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
                return reply
            }
            var configuration = NetworkConfiguration()
            configure(&configuration)
            let payloads = self.payloads
            recorder = NetworkRecorder(configuration: configuration, seed: 1, output: payloads.output)
            let sessionConfiguration = URLSessionConfiguration.ephemeral
            #expect(recorder.instrument(sessionConfiguration))
            instrumented = URLSession(configuration: sessionConfiguration)
            plain = URLSession(configuration: .ephemeral)
        }

        func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(server.port)\(path)")! }
    }

    /// One request by completion handler: data, response, error and the wall time it took.
    static func fetch(_ session: URLSession, _ request: URLRequest) async -> (Data?, HTTPURLResponse?, NSError?, Double) {
        let started = DispatchTime.now().uptimeNanoseconds
        return await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
                continuation.resume(returning: (data, response as? HTTPURLResponse, error.map { $0 as NSError }, elapsed))
            }.resume()
        }
    }

    @Test("completion-handler requests give the right templates, statuses and bytes, and the app the same answers")
    func completionHandlerRequests() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        var post = URLRequest(url: fixture.url("/upload/5?name=report"))
        post.httpMethod = "POST"
        post.httpBody = Data(repeating: 0x7A, count: 2048)
        let requests = [URLRequest(url: fixture.url("/users/42")),
                        URLRequest(url: fixture.url("/orders/9fceb02d0ae598e95dc970b74767f19372d61af8/items?page=2")),
                        URLRequest(url: fixture.url("/slow/7")), post]
        // Warm both paths up (thread pools, the slot's forwarding session, the connection) so
        // the timed requests measure requests, not first use.
        _ = await Self.fetch(fixture.instrumented, URLRequest(url: fixture.url("/warm-up")))
        _ = await Self.fetch(fixture.plain, URLRequest(url: fixture.url("/warm-up")))
        for request in requests {
            let (data, response, error, _) = await Self.fetch(fixture.instrumented, request)
            let (plainData, plainResponse, _, _) = await Self.fetch(fixture.plain, request)
            #expect(error == nil)
            #expect(data == plainData, "the app gets the same body through the recorder")
            #expect(response?.statusCode == plainResponse?.statusCode)
            #expect(response?.value(forHTTPHeaderField: "Content-Length") == plainResponse?.value(forHTTPHeaderField: "Content-Length"))
        }
        let payloads = await fixture.payloads.wait(for: 5)
        #expect(payloads.count == 5)
        let origin = "http://127.0.0.1:\(fixture.server.port)"

        let user = try #require(fixture.payloads.payload(endingWith: "/users/:id"))
        #expect(user.urlTemplate == origin + "/users/:id")
        #expect(user.method == "GET" && user.status == 200 && user.error == nil && user.host == "127.0.0.1")
        #expect(user.bytesReceived == 1000 && user.bytesSent == 0)
        // A completion handler hears of the response only at the end: no time to first byte.
        #expect(user.timings.ttfb == nil)
        #expect(user.timings.total >= 150, "total \(user.timings.total) ms for a 150 ms delay")

        let order = try #require(fixture.payloads.payload(endingWith: "/items"))
        #expect(order.urlTemplate == origin + "/orders/:id/items")
        #expect(order.status == 404 && order.bytesReceived == 10)

        let slow = try #require(fixture.payloads.payload(endingWith: "/slow/:id"))
        #expect(slow.status == 503 && slow.bytesReceived == 4)
        #expect(slow.timings.total >= 120)

        let upload = try #require(fixture.payloads.payload(endingWith: "/upload/:id"))
        #expect(upload.method == "POST" && upload.status == 201)
        #expect(upload.bytesSent == 2048 && upload.bytesReceived == 8)
        #expect(fixture.recorder.counters.keptFailure == 2)
    }

    @Test("async/await and delegate-based requests are recorded; delegates give the time to first byte")
    func asyncAndDelegateRequests() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        let (data, response) = try await fixture.instrumented.data(for: URLRequest(url: fixture.url("/users/42")))
        #expect(data.count == 1000 && (response as? HTTPURLResponse)?.statusCode == 200)

        let delegate = CollectingDelegate()
        let configuration = URLSessionConfiguration.ephemeral
        #expect(fixture.recorder.instrument(configuration))
        let delegated = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        delegated.dataTask(with: fixture.url("/users/42")).resume()
        let result = await delegate.result()
        #expect(result.error == nil && result.data.count == 1000 && result.status == 200)

        let payloads = await fixture.payloads.wait(for: 2)
        #expect(payloads.map(\.status) == [200, 200])
        #expect(payloads.map(\.bytesReceived) == [1000, 1000])
        #expect(payloads.first?.timings.ttfb == nil)
        let ttfb = try #require(payloads.last?.timings.ttfb, "a data delegate hears of the response as it arrives")
        #expect(ttfb >= 150 && ttfb <= payloads[1].timings.total)
    }

    /// How a timed request is made.
    enum Caller: String, CaseIterable, Sendable {
        case completionHandler, dataDelegate, tracedCompletionHandler
    }

    @Test("recorded times lie between the server's time and the app's, and match the server's time for scripted delays of 100+ ms, and what the app measured, within 20 ms",
          arguments: Caller.allCases, [("/users/42", 150.0), ("/slow/7", 120.0)])
    func times(caller: Caller, scripted: (path: String, delayMs: Double)) async throws {
        let fixture = try Fixture { if caller == .tracedCompletionHandler { $0.traceContextHosts = ["127.0.0.1"] } }
        defer { fixture.server.stop() }
        let delegate = CollectingDelegate()
        let delegated = URLSession(configuration: {
            let configuration = URLSessionConfiguration.ephemeral
            #expect(fixture.recorder.instrument(configuration))
            return configuration
        }(), delegate: delegate, delegateQueue: nil)
        _ = await Self.fetch(fixture.instrumented, URLRequest(url: fixture.url("/warm-up")))
        // Scheduling on a loaded machine only ever adds time — to the server's scripted sleep as
        // much as to the client — so every attempt must be in order (the recorded time never
        // shorter than the delay or than what the server's handler really took, never longer
        // than what the app measured around it), and the best attempt (of up to thirty; on a quiet
        // machine the first one) is judged
        // for closeness, to the server's real time rather than its scripted one and to the app's
        // (each on its own: a loaded machine seldom leaves one attempt quiet at both ends).
        var attempts: [String] = []
        var closeToServer = false
        var closeToApp = false
        for attempt in 0..<30 where !(closeToServer && closeToApp) {
            // What the app measured ends in its own callback (completion handler or delegate),
            // not when this test's task resumes: with other tests' blocking work on the few
            // threads of the concurrency pool, resuming can come seconds later.
            let elapsed: Double
            if caller == .dataDelegate {
                delegate.reset()
                let started = DispatchTime.now().uptimeNanoseconds
                delegated.dataTask(with: fixture.url(scripted.path)).resume()
                let outcome = await delegate.result()
                elapsed = Double(outcome.completedAt - started) / 1_000_000
            } else {
                (_, _, _, elapsed) = await Self.fetch(fixture.instrumented, URLRequest(url: fixture.url(scripted.path)))
            }
            let payloads = await fixture.payloads.wait(for: attempt + 2)
            let payload = try #require(payloads.count == attempt + 2 ? payloads.last : nil)
            let total = payload.timings.total
            let handled = try #require(fixture.handlerTimes.last)
            #expect(total >= scripted.delayMs && total >= handled - 1, "total \(total) ms for a \(scripted.delayMs) ms delay, \(handled) ms in the handler")
            #expect(total <= elapsed + 1, "total \(total) ms, but the app measured \(elapsed) ms around it")
            if let ttfb = payload.timings.ttfb { #expect(ttfb >= scripted.delayMs && ttfb >= handled - 1 && ttfb <= total) }
            #expect((payload.timings.ttfb != nil) == (caller != .completionHandler))
            attempts.append("total \(total) ms, ttfb \(payload.timings.ttfb.map { "\($0)" } ?? "-") ms, app \(elapsed) ms, handler \(handled) ms")
            closeToServer = closeToServer || (total <= handled + 20 && (payload.timings.ttfb.map { $0 <= handled + 20 } ?? true))
            closeToApp = closeToApp || elapsed - total <= 20
        }
        #expect(closeToServer, "no attempt within 20 ms of the server's time: \(attempts)")
        #expect(closeToApp, "no attempt within 20 ms of the app's time: \(attempts)")
    }

    @Test("transport errors reach the app unchanged and are recorded", arguments: ["/drop", "closed-port", "/hang"])
    func transportErrors(path: String) async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        let url = path == "closed-port" ? URL(string: "http://127.0.0.1:\(try LoopbackPort.free())/x")! : fixture.url(path)
        var request = URLRequest(url: url)
        request.timeoutInterval = 1
        let (_, _, error, _) = await Self.fetch(fixture.instrumented, request)
        let (_, _, plainError, _) = await Self.fetch(fixture.plain, request)
        let recorded = try #require(error)
        #expect(recorded.domain == plainError?.domain && recorded.code == plainError?.code)
        let payloads = await fixture.payloads.wait(for: 1)
        let payload = try #require(payloads.first)
        #expect(payload.status == nil)
        #expect(payload.error == NetworkFailure(domain: recorded.domain, code: recorded.code).description)
        #expect(fixture.recorder.counters.keptFailure == 1)
    }

    @Test("a cancelled request is cancelled for the app and recorded as cancelled")
    func cancellation() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        let error: NSError? = await withCheckedContinuation { continuation in
            let task = fixture.instrumented.dataTask(with: fixture.url("/hang")) { _, _, error in
                continuation.resume(returning: error.map { $0 as NSError })
            }
            task.resume()
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { task.cancel() }
        }
        #expect(error?.code == NSURLErrorCancelled)
        let payloads = await fixture.payloads.wait(for: 1)
        #expect(payloads.first?.error == "NSURLErrorDomain -999 cancelled")
    }

    @Test("trace context: listed hosts get a traceparent the payload records, others none, the app's own is kept")
    func traceContext() async throws {
        let listed = try Fixture { $0.traceContextHosts = ["127.0.0.1"] }
        defer { listed.server.stop() }
        let (data, _, _, _) = await Self.fetch(listed.instrumented, URLRequest(url: listed.url("/echo-trace")))
        let sent = try #require(TraceParent(header: String(decoding: data ?? Data(), as: UTF8.self)))
        // The header was added by sending the request again; that path sees the first byte.
        #expect(await listed.payloads.wait(for: 1).first?.timings.ttfb != nil)
        var own = URLRequest(url: listed.url("/echo-trace?own"))
        own.setValue("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", forHTTPHeaderField: "traceparent")
        let (ownEcho, _, _, _) = await Self.fetch(listed.instrumented, own)
        #expect(String(decoding: ownEcho ?? Data(), as: UTF8.self) == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        let payloads = await listed.payloads.wait(for: 2)
        #expect(Set(payloads.compactMap(\.traceId)) == [sent.traceId, "0af7651916cd43dd8448eb211c80319c"])
        #expect(Set(payloads.compactMap(\.spanId)) == [sent.parentId, "b7ad6b7169203331"])
        #expect(listed.recorder.counters.traceContextInjected == 1)

        let unlisted = try Fixture { $0.traceContextHosts = ["api.example.com"] }
        defer { unlisted.server.stop() }
        let (none, _, _, _) = await Self.fetch(unlisted.instrumented, URLRequest(url: unlisted.url("/echo-trace")))
        #expect(String(decoding: none ?? Data(), as: UTF8.self) == "none")
        #expect(await unlisted.payloads.wait(for: 1).first?.traceId == nil)
    }

    @Test("redirects are followed; the event keeps the URL the app asked for and the final status")
    func redirects() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        let (data, response, error, _) = await Self.fetch(fixture.instrumented, URLRequest(url: fixture.url("/redirect/3")))
        #expect(error == nil && response?.statusCode == 200 && data?.count == 1000)
        let payload = try #require(await fixture.payloads.wait(for: 1).first)
        #expect(payload.urlTemplate.hasSuffix("/redirect/:id") && payload.status == 200)
    }

    @Test("upload and download tasks pass through FoundationNetworking's own protocol and are recorded")
    func uploadAndDownload() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        var request = URLRequest(url: fixture.url("/upload/5"))
        request.httpMethod = "PUT"
        let body = Data(repeating: 0x41, count: 3000)
        let (echo, uploadStatus): (Data?, Int?) = await withCheckedContinuation { continuation in
            fixture.instrumented.uploadTask(with: request, from: body) { data, response, _ in
                continuation.resume(returning: (data, (response as? HTTPURLResponse)?.statusCode))
            }.resume()
        }
        #expect(uploadStatus == 201 && echo == Data("got 3000".utf8), "the server received the whole upload body")
        let downloaded: Int? = await withCheckedContinuation { continuation in
            fixture.instrumented.downloadTask(with: fixture.url("/file/77")) { location, _, _ in
                continuation.resume(returning: location.flatMap { try? Data(contentsOf: $0) }?.count)
            }.resume()
        }
        #expect(downloaded == 70_000)
        _ = await fixture.payloads.wait(for: 2)
        let upload = try #require(fixture.payloads.payload(endingWith: "/upload/:id"))
        #expect(upload.method == "PUT" && upload.status == 201 && upload.bytesReceived == 8)
        let download = try #require(fixture.payloads.payload(endingWith: "/file/:id"))
        #expect(download.status == 200 && download.bytesReceived == 70_000)
    }

    @Test("excluded hosts, a stopped recorder and other schemes pass through unrecorded")
    func passThrough() async throws {
        let fixture = try Fixture { $0.excludedHosts = ["127.0.0.1"] }
        defer { fixture.server.stop() }
        let (data, _, error, _) = await Self.fetch(fixture.instrumented, URLRequest(url: fixture.url("/users/42")))
        #expect(error == nil && data?.count == 1000)
        fixture.recorder.restart(configuration: NetworkConfiguration(), output: fixture.payloads.output)
        fixture.recorder.stop()
        _ = await Self.fetch(fixture.instrumented, URLRequest(url: fixture.url("/x")))
        #expect(await fixture.payloads.wait(for: 1, seconds: 0.3).isEmpty)
        #expect(fixture.recorder.counters.observed == 0)
    }

    @Test("nothing is retained after completion, on the native and the forwarding path", arguments: [false, true])
    func noRetention(traced: Bool) async throws {
        let fixture = try Fixture { if traced { $0.traceContextHosts = ["127.0.0.1"] } }
        defer { fixture.server.stop() }
        weak var weakTask: URLSessionDataTask?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let task = fixture.instrumented.dataTask(with: fixture.url("/x")) { _, _, _ in continuation.resume() }
            weakTask = task
            task.resume()
        }
        #expect((await fixture.payloads.wait(for: 1).first?.traceId != nil) == traced)
        let deadline = Date().addingTimeInterval(5)
        while weakTask != nil && Date() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
        #expect(weakTask == nil, "the session released the task")
        let slots = (0..<RecorderSlots.capacity).compactMap(RecorderSlots.slot).filter { $0.recorder === fixture.recorder }
        #expect(!slots.isEmpty)
        for slot in slots { #expect(slot.queue.sync { slot.exchangesInFlight } == 0) }
    }

    @Test("instrumenting one configuration twice claims one slot")
    func instrumentTwice() {
        let recorder = NetworkRecorder(output: { _, _ in })
        let configuration = URLSessionConfiguration.ephemeral
        #expect(recorder.instrument(configuration))
        let classes = configuration.protocolClasses?.count
        #expect(recorder.instrument(configuration))
        #expect(configuration.protocolClasses?.count == classes)
    }
}

/// A data delegate that collects one task's body, status and error.
final class CollectingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Outcome: Sendable {
        var data = Data()
        var status: Int?
        var error: NSError?
        /// When the task completed (`DispatchTime` uptime nanoseconds), as the delegate heard it.
        var completedAt: UInt64 = 0
    }

    private let lock = NSLock()
    private var outcome = Outcome()
    private var continuation: CheckedContinuation<Outcome, Never>?
    private var finished = false

    /// Forgets the last task's outcome, for the next one.
    func reset() {
        lock.lock(); outcome = Outcome(); finished = false; lock.unlock()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.lock(); outcome.status = (response as? HTTPURLResponse)?.statusCode; lock.unlock()
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock(); outcome.data.append(data); lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        outcome.error = error.map { $0 as NSError }
        outcome.completedAt = now
        finished = true
        let waiting = continuation
        continuation = nil
        let result = outcome
        lock.unlock()
        waiting?.resume(returning: result)
    }

    func result() async -> Outcome {
        await withCheckedContinuation { continuation in
            lock.lock()
            if finished {
                let result = outcome
                lock.unlock()
                continuation.resume(returning: result)
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }
}
#endif
