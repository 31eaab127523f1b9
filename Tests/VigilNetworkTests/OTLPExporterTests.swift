import Foundation
import Testing
import VigilCore
import VigilTestSupport
import VigilTransport
@testable import Vigil

/// What an OTLP receiver on loopback was sent.
final class OTLPReceiverLog: @unchecked Sendable {
    struct Received {
        var path: String
        var headers: [String: String]
        var body: Data
    }

    private let lock = NSLock()
    private var received: [Received] = []
    private var answers: [LoopbackHTTPServer.Reply]

    /// A log answering with `answers` in turn, then 200 with an empty JSON object.
    init(answers: [LoopbackHTTPServer.Reply] = []) { self.answers = answers }

    func handle(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        var body = request.body
        if request.headers["content-encoding"] == "gzip" { body = (try? Gzip.decompress(body, limit: 64 << 20)) ?? Data() }
        lock.lock()
        defer { lock.unlock() }
        received.append(Received(path: request.path, headers: request.headers, body: body))
        return answers.isEmpty ? .respond(status: 200, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
            : answers.removeFirst()
    }

    var all: [Received] {
        lock.lock(); defer { lock.unlock() }
        return received
    }
}

@Suite("OTLP exporter")
struct OTLPExporterTests {
    private func configuration(_ server: LoopbackHTTPServer, batch: Int = 512) -> OTLPExporterConfiguration {
        OTLPExporterConfiguration(endpoint: server.baseURL, headers: ["Authorization": "Bearer collector-key"],
                                  maxBatchEvents: batch, flushIntervalSeconds: 60, timeoutSeconds: 5,
                                  backoff: BackoffSchedule(baseSeconds: 0.01, capSeconds: 0.05, jitterFraction: 0))
    }

    @Test("spans and network requests go to /v1/traces, everything else to /v1/logs, gzip compressed")
    func routes() throws {
        let log = OTLPReceiverLog()
        let server = try LoopbackHTTPServer { log.handle($0) }
        defer { server.stop() }
        let exporter = OTLPExporter(configuration: configuration(server), seed: 1)
        let events = SampleEvents.oneOfEach()
        for event in events { exporter.emit(event) }
        #expect(exporter.flushAndWait(timeoutSeconds: 10))
        let received = log.all
        #expect(received.map(\.path) == ["/v1/traces", "/v1/logs"])
        #expect(received.allSatisfy { $0.headers["content-encoding"] == "gzip" && $0.headers["content-type"] == "application/json" })
        #expect(received.allSatisfy { $0.headers["authorization"] == "Bearer collector-key" })
        let traces = try OTLPJSON.decodeTraces(try #require(received.first).body)
        #expect(traces.spanCount == 2)
        let logs = try OTLPJSON.decodeLogs(received[1].body)
        #expect(logs.recordCount == events.count - 2)
        let statistics = exporter.statistics
        #expect(statistics.spansExported == 2 && statistics.logRecordsExported == UInt64(events.count - 2))
        #expect(statistics.requests == 2 && statistics.failedAttempts == 0)
    }

    @Test("a full batch is sent without waiting for the timer, in batches of the configured size")
    func batching() throws {
        let log = OTLPReceiverLog()
        let server = try LoopbackHTTPServer { log.handle($0) }
        defer { server.stop() }
        let exporter = OTLPExporter(configuration: configuration(server, batch: 10), seed: 1)
        for index in 0..<25 { exporter.emit(SampleEvents.make(.span, index: index)) }
        let deadline = Date().addingTimeInterval(10)
        while log.all.count < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(log.all.count == 2, "two full batches left before any flush")
        #expect(exporter.flushAndWait(timeoutSeconds: 10))
        let counts = try log.all.map { try OTLPJSON.decodeTraces($0.body).spanCount }
        #expect(counts == [10, 10, 5])
    }

    @Test("429 and 5xx are retried (honouring Retry-After), other 4xx drop the batch, partial success is counted")
    func answers() throws {
        let partial = Data(#"{"partialSuccess":{"rejectedSpans":"1","errorMessage":"span too old"}}"#.utf8)
        let log = OTLPReceiverLog(answers: [
            .respond(status: 503, headers: ["Retry-After": "0"], body: Data()),
            .respond(status: 429, headers: [:], body: Data()),
            .respond(status: 200, headers: [:], body: partial),
            .respond(status: 400, headers: [:], body: Data("bad".utf8)),
        ])
        let server = try LoopbackHTTPServer { log.handle($0) }
        defer { server.stop() }
        let exporter = OTLPExporter(configuration: configuration(server), seed: 1)
        exporter.emit(SampleEvents.make(.span, index: 1))
        exporter.emit(SampleEvents.make(.span, index: 2))
        exporter.emit(SampleEvents.make(.log, index: 1))
        #expect(exporter.flushAndWait(timeoutSeconds: 10))
        #expect(log.all.map(\.path) == ["/v1/traces", "/v1/traces", "/v1/traces", "/v1/logs"])
        let statistics = exporter.statistics
        #expect(statistics.failedAttempts == 2)
        #expect(statistics.spansExported == 1)
        #expect(statistics.rejected == 2, "one span by partial success, one log record by the 400")
        #expect(statistics.logRecordsExported == 0)
    }

    @Test("a receiver that keeps failing makes the exporter give up after the configured attempts")
    func givesUp() throws {
        let log = OTLPReceiverLog(answers: Array(repeating: .respond(status: 500, headers: [:], body: Data()), count: 10))
        let server = try LoopbackHTTPServer { log.handle($0) }
        defer { server.stop() }
        var settings = configuration(server)
        settings.maxAttempts = 3
        let exporter = OTLPExporter(configuration: settings, seed: 1)
        exporter.emit(SampleEvents.make(.span, index: 1))
        #expect(exporter.flushAndWait(timeoutSeconds: 10))
        #expect(log.all.count == 3)
        #expect(exporter.statistics.droppedAfterRetries == 1)
    }

    @Test("an unreachable receiver counts failed attempts and drops the batch after the last")
    func unreachable() throws {
        let port = try LoopbackPort.free()
        let settings = OTLPExporterConfiguration(endpoint: URL(string: "http://127.0.0.1:\(port)")!, flushIntervalSeconds: 60,
                                                 maxAttempts: 2,
                                                 backoff: BackoffSchedule(baseSeconds: 0.01, capSeconds: 0.01, jitterFraction: 0))
        let exporter = OTLPExporter(configuration: settings, seed: 1)
        exporter.emit(SampleEvents.make(.log, index: 1))
        #expect(exporter.flushAndWait(timeoutSeconds: 10))
        #expect(exporter.statistics.failedAttempts == 2)
        #expect(exporter.statistics.droppedAfterRetries == 1)
    }

    @Test("a full queue drops and counts; a stopped exporter takes nothing more")
    func queueLimit() throws {
        let server = try LoopbackHTTPServer { _ in .hang }
        defer { server.stop() }
        var settings = configuration(server, batch: 1000)
        settings = OTLPExporterConfiguration(endpoint: settings.endpoint, maxBatchEvents: 1000, maxQueuedEvents: 3,
                                             flushIntervalSeconds: 60)
        let exporter = OTLPExporter(configuration: settings, seed: 1)
        for index in 0..<5 { exporter.emit(SampleEvents.make(.log, index: index)) }
        #expect(exporter.statistics.droppedQueueFull == 2)
        exporter.stop()
        exporter.emit(SampleEvents.make(.log, index: 9))
        #expect(exporter.statistics.droppedQueueFull == 3)
    }
}

/// `VigilSetup.openTelemetry`: the SDK's sink is joined by an exporter, flushed when Vigil stops.
@Suite("OpenTelemetry export wiring")
struct OpenTelemetryExportWiringTests {
    final class Collected: EventSink, @unchecked Sendable {
        private let lock = NSLock()
        private var events: [Event] = []
        func emit(_ event: Event) { lock.lock(); events.append(event); lock.unlock() }
        var count: Int { lock.lock(); defer { lock.unlock() }; return events.count }
    }

    @Test("with a receiver configured, events reach both the sink and the collector; stopping flushes")
    func attachAndDetach() throws {
        let log = OTLPReceiverLog()
        let server = try LoopbackHTTPServer { log.handle($0) }
        defer { server.stop() }
        var setup = VigilSetup(app: SampleEvents.app)
        let plain = Collected()
        #expect(OpenTelemetryExport.attach(to: plain, setup: setup) is Collected, "no receiver, no exporter")
        setup.openTelemetry = OTLPExporterConfiguration(endpoint: server.baseURL, flushIntervalSeconds: 60)
        let sink = OpenTelemetryExport.attach(to: plain, setup: setup)
        for event in SampleEvents.oneOfEach() { sink.emit(event) }
        #expect(plain.count == EventType.allCases.count)
        OpenTelemetryExport.detach()
        #expect(log.all.map(\.path).sorted() == ["/v1/logs", "/v1/traces"])
        #expect(OpenTelemetryExport.statistics == nil)
    }
}
