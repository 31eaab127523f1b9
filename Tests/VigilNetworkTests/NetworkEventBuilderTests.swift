import Foundation
import Testing
import VigilCore

@Suite("Network event building")
struct NetworkEventBuilderTests {
    private let start = Date(timeIntervalSince1970: 1_795_985_323.123)

    @Test("an observation with Apple's full marks becomes one payload with every phase")
    func fullMarks() throws {
        let marks = NetworkTransactionMarks(domainLookupStart: 1, domainLookupEnd: 21, connectStart: 21, connectEnd: 101,
                                            secureConnectionStart: 41, secureConnectionEnd: 101, requestStart: 102,
                                            requestEnd: 104, responseStart: 204, responseEnd: 254, end: 255)
        let observation = NetworkObservation(
            method: "post", url: "https://api.example.com/orders/981/items?coupon=SAVE10",
            requestHeaders: ["Content-Type": "application/json", "Authorization": "Bearer x"],
            responseHeaders: ["X-Request-Id": "r-1", "Set-Cookie": "s=1"], status: 201, bytesSent: 310,
            bytesReceived: 1200, start: start, marks: marks, reusedConnection: false, networkProtocol: "h2",
            traceParent: TraceParent(traceId: "0af7651916cd43dd8448eb211c80319c", parentId: "b7ad6b7169203331"))
        var configuration = NetworkConfiguration()
        configuration.recordedRequestHeaders = ["content-type", "authorization"]
        configuration.recordedResponseHeaders = ["x-request-id", "set-cookie"]
        var generator = SeededGenerator(seed: 1)
        let (decision, payload) = NetworkEventBuilder(configuration: configuration).build(observation, using: &generator)
        #expect(decision == .keptSampled)
        let body = try #require(payload)
        #expect(body.method == "POST")
        #expect(body.urlTemplate == "https://api.example.com/orders/:id/items")
        #expect(body.host == "api.example.com")
        #expect(body.status == 201)
        #expect(body.error == nil)
        #expect(body.bytesSent == 310 && body.bytesReceived == 1200)
        #expect(body.timings == NetworkTimings(dns: 20, connect: 20, tls: 60, request: 2, ttfb: 100, response: 50, total: 255))
        #expect(body.reusedConnection == false)
        #expect(body.protocol == "h2")
        #expect(body.traceId == "0af7651916cd43dd8448eb211c80319c")
        #expect(body.spanId == "b7ad6b7169203331")
        #expect(body.requestHeaders == ["content-type": "application/json"])
        #expect(body.responseHeaders == ["x-request-id": "r-1"])
    }

    @Test("Linux's partial marks give time to first byte from the start and leave the rest absent")
    func partialMarks() {
        let timings = NetworkTransactionMarks(responseStart: 120, responseEnd: 180, end: 181).timings
        #expect(timings == NetworkTimings(ttfb: 120, response: 60, total: 181))
    }

    @Test("marks out of order or not finite leave their phase absent; the total is never negative")
    func badMarks() {
        let timings = NetworkTransactionMarks(domainLookupStart: 10, domainLookupEnd: 5, connectStart: .nan,
                                              connectEnd: 3, responseStart: .infinity, end: -4).timings
        #expect(timings == NetworkTimings(total: 0))
    }

    @Test("headers are never recorded unless allow-listed")
    func noHeadersByDefault() throws {
        var generator = SeededGenerator(seed: 1)
        let observation = NetworkObservation(method: "GET", url: "https://x.io/a", requestHeaders: ["Accept": "*/*"],
                                             responseHeaders: ["Server": "nginx"], status: 200, start: start,
                                             marks: NetworkTransactionMarks(end: 5))
        let payload = try #require(NetworkEventBuilder().build(observation, using: &generator).payload)
        #expect(payload.requestHeaders == nil && payload.responseHeaders == nil)
    }

    @Test("transport failures are named by domain and code")
    func failures() throws {
        var generator = SeededGenerator(seed: 1)
        let observation = NetworkObservation(method: "GET", url: "http://127.0.0.1:1/x",
                                             failure: NetworkFailure(domain: NetworkFailure.urlErrorDomain, code: -1004),
                                             start: start, marks: NetworkTransactionMarks(end: 3))
        let (decision, payload) = NetworkEventBuilder().build(observation, using: &generator)
        #expect(decision == .keptFailure)
        #expect(payload?.error == "NSURLErrorDomain -1004 cannotConnectToHost")
        #expect(payload?.status == nil)
        #expect(NetworkFailure(domain: "Custom", code: 7).description == "Custom 7")
    }

    @Test("excluded hosts are dropped, and never receive trace context")
    func exclusion() {
        var configuration = NetworkConfiguration()
        configuration.excludedHosts = ["vigil.example.com", "*.analytics.io"]
        configuration.traceContextHosts = ["*"]
        let builder = NetworkEventBuilder(configuration: configuration)
        var generator = SeededGenerator(seed: 1)
        for url in ["https://vigil.example.com/api/v1/events", "https://eu.analytics.io/t"] {
            let observation = NetworkObservation(method: "POST", url: url, status: 500, start: start,
                                                 marks: NetworkTransactionMarks(end: 3))
            #expect(builder.build(observation, using: &generator).decision == .droppedExcludedHost)
        }
        #expect(!builder.propagatesTraceContext(to: "eu.analytics.io"))
        #expect(builder.propagatesTraceContext(to: "api.example.com"))
        #expect(!builder.isExcluded(host: "analytics.io"))
    }

    @Test("trace context goes only to the listed hosts")
    func propagation() {
        var configuration = NetworkConfiguration()
        #expect(!NetworkEventBuilder(configuration: configuration).propagatesTraceContext(to: "api.example.com"))
        configuration.traceContextHosts = ["api.example.com", "*.internal.example.com"]
        let builder = NetworkEventBuilder(configuration: configuration)
        #expect(builder.propagatesTraceContext(to: "API.example.com"))
        #expect(builder.propagatesTraceContext(to: "orders.internal.example.com"))
        #expect(!builder.propagatesTraceContext(to: "internal.example.com"))
        #expect(!builder.propagatesTraceContext(to: "cdn.example.com"))
    }

    @Test("unusual methods are kept as uppercase tokens; anything else becomes OTHER", arguments: [
        ("get", "GET"), ("PROPFIND", "PROPFIND"), ("M-SEARCH", "M-SEARCH"), ("GET /evil", "OTHER"), ("", "OTHER"),
        (String(repeating: "A", count: 40), "OTHER"),
    ])
    func methods(method: String, expected: String) throws {
        var generator = SeededGenerator(seed: 1)
        let observation = NetworkObservation(method: method, url: "https://x.io/", status: 200, start: start,
                                             marks: NetworkTransactionMarks(end: 1))
        #expect(try #require(NetworkEventBuilder().build(observation, using: &generator).payload).method == expected)
    }

    @Test("credential headers in the allow-list and out-of-range values are reported")
    func configurationProblems() {
        var configuration = NetworkConfiguration()
        configuration.sampleRate = 1.5
        configuration.slowThresholdMs = .nan
        configuration.recordedRequestHeaders = ["Authorization", "accept"]
        let fields = configuration.problems().map(\.field)
        #expect(fields == ["network.sampleRate", "network.slowThresholdMs", "network.recordedHeaders"])
        let clamped = configuration.clamped()
        #expect(clamped.sampleRate == 1)
        #expect(clamped.slowThresholdMs == 1000)
        var whole = VigilConfiguration()
        whole.network = configuration
        #expect(throws: ConfigurationError.self) { try whole.validate() }
        #expect(whole.clamped().network.sampleRate == 1)
    }

    @Test("counters count each decision once")
    func counters() {
        var counters = NetworkRecordingCounters()
        for decision in SamplingDecision.allCases { counters.count(decision) }
        #expect(counters.observed == 5)
        #expect(counters.recorded == 3)
        #expect(counters.droppedBySampling == 1 && counters.droppedExcludedHost == 1)
    }
}

@Suite("Network event building: cancellations")
struct NetworkCancellationTests {
    @Test("a cancelled request is recorded with its error but sampled like a success")
    func cancellation() {
        var configuration = NetworkConfiguration()
        configuration.sampleRate = 0
        var generator = SeededGenerator(seed: 1)
        let observation = NetworkObservation(method: "GET", url: "https://x.io/search",
                                             failure: NetworkFailure(domain: NetworkFailure.urlErrorDomain, code: -999),
                                             start: Date(), marks: NetworkTransactionMarks(end: 3))
        #expect(NetworkEventBuilder(configuration: configuration).build(observation, using: &generator).decision == .droppedBySampling)
        let kept = NetworkEventBuilder().build(observation, using: &generator)
        #expect(kept.decision == .keptSampled)
        #expect(kept.payload?.error == "NSURLErrorDomain -999 cancelled")
    }
}
