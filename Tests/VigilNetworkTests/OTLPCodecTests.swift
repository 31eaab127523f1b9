import Foundation
import Testing
import VigilCore
import VigilTestSupport

@Suite("OTLP codec")
struct OTLPCodecTests {
    private func jsonObject(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("the proto examples' trace document is accepted: ids, times, kinds, status and attributes")
    func traceExample() throws {
        let request = try OTLPJSON.decodeTraces(Data(OTLPDocuments.traceExample.utf8))
        #expect(request.spanCount == 2)
        let result = OTLPSpanImporter().events(from: request)
        #expect(result.problems.isEmpty)
        #expect(result.droppedSpanEvents == 1 && result.droppedLinks == 1)
        #expect(result.events.count == 2)
        let server = try #require(result.events.first)
        guard case .span(let span) = server.payload else { Issue.record("not a span"); return }
        #expect(span.traceId == "5b8efff798038103d269b633813fc60c")
        #expect(span.spanId == "eee19b7ec3c1b174")
        #expect(span.parentSpanId == "eee19b7ec3c1b173")
        #expect(span.kind == .server)
        #expect(span.status == .ok)
        #expect(span.start == Date(timeIntervalSince1970: 1_544_712_660))
        #expect(span.durationMs == 1000)
        #expect(span.attributes["http.response.status_code"] == .int(201))
        #expect(span.attributes["retry"] == .bool(false))
        #expect(span.attributes["load"] == .double(0.75))
        #expect(span.attributes["tags"] == .string(#"{"arrayValue":{"values":[{"stringValue":"a"},{"intValue":"2"}]}}"#))
        #expect(span.attributes["k8s.pod.name"] == .string("checkout-api-7f9c"))
        #expect(span.attributes["otel.scope.name"] == .string("com.example.tracing"))
        #expect(span.attributes["otel.scope.version"] == .string("1.3.0"))
        #expect(server.app == AppInfo(id: "checkout-api", version: "2.4.1", build: ""))
        #expect(server.device == DeviceInfo(model: "api-7f9c", os: "Linux", osVersion: "unknown", arch: "x86_64"))
        #expect(server.time == span.start)
        let child = result.events[1]
        guard case .span(let database) = child.payload else { Issue.record("not a span"); return }
        #expect(database.kind == .client && database.status == .error && database.statusMessage == "deadlock detected")
        #expect(child.session == server.session)
        // Importing the same document again gives the same event ids (a retried export is stored once).
        #expect(OTLPSpanImporter().events(from: request).events.map(\.id) == result.events.map(\.id))
    }

    @Test("base64 ids and enum names from generic protobuf JSON exporters are tolerated")
    func tolerantReading() throws {
        let traceBytes = Data([0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, 0x81, 0x3f, 0xc6, 0x0c])
        let spanBytes = Data([0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74])
        let document = """
        {"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"\(traceBytes.base64EncodedString())",
        "spanId":"\(spanBytes.base64EncodedString())","name":"x","kind":"SPAN_KIND_PRODUCER",
        "startTimeUnixNano":1544712660000000000,"endTimeUnixNano":"1544712660000000000",
        "status":{"code":"STATUS_CODE_ERROR"}}]}]}]}
        """
        let result = OTLPSpanImporter().events(from: try OTLPJSON.decodeTraces(Data(document.utf8)))
        let event = try #require(result.events.first)
        guard case .span(let span) = event.payload else { Issue.record("not a span"); return }
        #expect(span.traceId == "5b8efff798038103d269b633813fc60c")
        #expect(span.spanId == "eee19b7ec3c1b174")
        #expect(span.kind == .producer && span.status == .error)
        #expect(event.app.id == "unknown_service")
    }

    @Test("bad spans are refused with their path; the good ones are kept", arguments: [
        (#""traceId":"00000000000000000000000000000000","spanId":"eee19b7ec3c1b174""#, "traceId"),
        (#""traceId":"5b8efff798038103d269b633813fc60c","spanId":"xyz""#, "spanId"),
        (#""traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","parentSpanId":"12""#, "parentSpanId"),
    ])
    func refusedSpans(ids: String, field: String) throws {
        let document = """
        {"resourceSpans":[{"scopeSpans":[{"spans":[
          {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b170","name":"good",
           "startTimeUnixNano":"1","endTimeUnixNano":"2"},
          {\(ids),"name":"bad","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}
        """
        let result = OTLPSpanImporter().events(from: try OTLPJSON.decodeTraces(Data(document.utf8)))
        #expect(result.events.count == 1)
        #expect(result.rejectedSpans == 1)
        #expect(result.problems.map(\.path) == ["resourceSpans[0].scopeSpans[0].spans[1]"])
        #expect(result.problems.map(\.field) == [field])
    }

    @Test("times are checked: a missing start or an end before the start is refused")
    func refusedTimes() throws {
        let document = """
        {"resourceSpans":[{"scopeSpans":[{"spans":[
          {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b170","name":"a"},
          {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b171","name":"b",
           "startTimeUnixNano":"5","endTimeUnixNano":"4"}]}]}]}
        """
        let result = OTLPSpanImporter().events(from: try OTLPJSON.decodeTraces(Data(document.utf8)))
        #expect(result.problems.map(\.field) == ["startTimeUnixNano", "endTimeUnixNano"])
    }

    @Test("more spans than the limit are refused as one problem")
    func spanLimit() throws {
        let span = #"{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b170","name":"a","startTimeUnixNano":"1","endTimeUnixNano":"1"}"#
        let document = #"{"resourceSpans":[{"scopeSpans":[{"spans":["# + Array(repeating: span, count: 5).joined(separator: ",") + "]}]}]}"
        let result = OTLPSpanImporter(maximumSpans: 3).events(from: try OTLPJSON.decodeTraces(Data(document.utf8)))
        #expect(result.events.count == 3)
        #expect(result.rejectedSpans == 2)
        #expect(result.problems.count == 1)
    }

    @Test("malformed documents fail with the JSON path", arguments: [
        ("{", ""),
        (#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":"SPAN_KIND_NOPE"}]}]}]}"#, "resourceSpans[0].scopeSpans[0].spans[0].kind"),
        (#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"12x"}]}]}]}"#, "resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano"),
        (#"{"resourceSpans":{"a":1}}"#, "resourceSpans"),
    ])
    func malformed(document: String, path: String) {
        #expect { try OTLPJSON.decodeTraces(Data(document.utf8)) } throws: { error in
            (error as? OTLPDecodingError)?.path == path
        }
    }

    @Test("Vigil spans export with lowercase hex ids, integer enums, string nanoseconds and the resource conventions")
    func exportShape() throws {
        let event = SampleEvents.make(.span, index: 2)
        let request = try #require(OTLPDocumentBuilder().traces(from: [event]))
        let root = try jsonObject(try OTLPJSON.encode(request))
        let resourceSpans = try #require((root["resourceSpans"] as? [[String: Any]])?.first)
        let resource = try #require(resourceSpans["resource"] as? [String: Any])
        let attributes = try #require(resource["attributes"] as? [[String: Any]])
        var byKey: [String: String] = [:]
        for attribute in attributes {
            if let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any],
               let text = value["stringValue"] as? String { byKey[key] = text }
        }
        #expect(byKey["service.name"] == "com.example.shop")
        #expect(byKey["service.version"] == "3.2.0")
        #expect(byKey["os.type"] == "darwin")
        #expect(byKey["os.name"] == "iOS")
        #expect(byKey["os.version"] == "18.1")
        #expect(byKey["device.model.identifier"] == "iPhone14,2")
        #expect(byKey["device.manufacturer"] == "Apple")
        #expect(byKey["host.arch"] == "arm64")
        #expect(byKey["session.id"] == event.session.uuidString)
        #expect(byKey["telemetry.sdk.name"] == "vigil")
        let scopeSpans = try #require((resourceSpans["scopeSpans"] as? [[String: Any]])?.first)
        let span = try #require((scopeSpans["spans"] as? [[String: Any]])?.first)
        guard case .span(let payload) = event.payload else { Issue.record("sample is not a span"); return }
        #expect(span["traceId"] as? String == payload.traceId)
        #expect((span["traceId"] as? String)?.lowercased() == span["traceId"] as? String)
        #expect(span["spanId"] as? String == payload.spanId)
        #expect(span["startTimeUnixNano"] as? String == String(OTLPEventMapping.unixNanos(payload.start)))
        #expect(span["kind"] is Int)
        if let status = span["status"] as? [String: Any] { #expect(status["code"] is Int) }
    }

    @Test("every span event survives export and import unchanged", arguments: 0..<6)
    func spanRoundTrip(index: Int) throws {
        var event = SampleEvents.make(.span, index: index)
        event.context = EventContext(page: "Checkout", appState: "foreground", network: index % 2 == 0 ? "cellular" : "wifi")
        event.tags = ["experiment": "b", "cohort": "\(index)"]
        let data = try OTLPJSON.encode(try #require(OTLPDocumentBuilder().traces(from: [event])))
        let result = OTLPSpanImporter().events(from: try OTLPJSON.decodeTraces(data))
        #expect(result.problems.isEmpty)
        #expect(result.events == [event])
    }

    @Test("a network event exports as a client span on the trace it sent, with HTTP attributes and phases")
    func networkSpan() throws {
        let payload = NetworkPayload(method: "GET", urlTemplate: "https://api.example.com:8443/users/:id", host: "api.example.com",
                                     status: 503, bytesSent: 120, bytesReceived: 900,
                                     timings: NetworkTimings(dns: 5, connect: 10, tls: 20, request: 1, ttfb: 80, response: 4, total: 120),
                                     reusedConnection: false, protocol: "h2",
                                     traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331",
                                     responseHeaders: ["x-request-id": "r-9"])
        let event = Event(time: SampleEvents.time, session: UUID(), app: SampleEvents.app, device: SampleEvents.device,
                          payload: .network(payload))
        let span = try #require(OTLPEventMapping.span(for: event))
        #expect(span.traceId == "0af7651916cd43dd8448eb211c80319c" && span.spanId == "b7ad6b7169203331")
        #expect(span.name == "GET /users/:id")
        #expect(span.kind?.value == 3)
        #expect(span.status?.code?.value == 2)
        #expect(span.endTimeUnixNano.value - span.startTimeUnixNano.value == 120_000_000)
        let attributes = span.attributes ?? []
        #expect(attributes.value(for: "http.response.status_code") == .int(503))
        #expect(attributes.value(for: "error.type") == .string("503"))
        #expect(attributes.value(for: "server.address") == .string("api.example.com"))
        #expect(attributes.value(for: "server.port") == .int(8443))
        #expect(attributes.value(for: "url.template") == .string("/users/:id"))
        #expect(attributes.value(for: "network.protocol.version") == .string("2"))
        #expect(attributes.value(for: "vigil.network.ttfb_ms") == .double(80))
        #expect(attributes.value(for: "http.response.header.x-request-id") == .array([.string("r-9")]))
        // Without a traceparent the ids come from the event id, stable across exports.
        var untraced = payload
        untraced.traceId = nil
        untraced.spanId = nil
        let plain = Event(time: SampleEvents.time, session: UUID(), app: SampleEvents.app, device: SampleEvents.device,
                          payload: .network(untraced))
        let first = try #require(OTLPEventMapping.span(for: plain))
        #expect(TraceIdentifier.isValid(first.traceId, hexDigits: 32) && TraceIdentifier.isValid(first.spanId, hexDigits: 16))
        #expect(OTLPEventMapping.span(for: plain) == first)
    }

    @Test("logs and the other event types export as log records with severities and event names")
    func logRecords() throws {
        let events = SampleEvents.oneOfEach()
        let request = try #require(OTLPDocumentBuilder().logs(from: events))
        #expect(request.recordCount == events.count - 2)
        let records = request.resourceLogs.flatMap { $0.scopeLogs.flatMap(\.logRecords) }
        let byType = Dictionary(uniqueKeysWithValues: records.compactMap { record -> (String, OTLPLogRecord)? in
            guard let type = record.attributes?.string(for: "vigil.event.type") else { return nil }
            return (type, record)
        })
        #expect(byType["crash"]?.severityNumber?.value == 21)
        #expect(byType["crash"]?.eventName == "vigil.crash")
        #expect(byType["resource"]?.severityNumber?.value == 9)
        guard case .log(let log) = events.first(where: { $0.type == .log })?.payload else {
            Issue.record("no log sample"); return
        }
        #expect(byType["log"]?.severityNumber?.value == OTLPEventMapping.severityNumber(log.level))
        #expect(byType["log"]?.body == .string(log.message))
        // The body of a non-log event is its payload's schema JSON.
        let hangBody = try #require(byType["hang"]?.body?.stringValue)
        let hang = try EventJSON.makeDecoder().decode(HangPayload.self, from: Data(hangBody.utf8))
        guard case .hang(let sent) = events.first(where: { $0.type == .hang })?.payload else { return }
        #expect(hang == sent)
        let encoded = try jsonObject(try OTLPJSON.encode(request))
        #expect(encoded["resourceLogs"] != nil)
        #expect(OTLPDocumentBuilder().traces(from: events.filter { $0.type == .hang }) == nil)
    }

    @Test("identifiers: hex of any case and base64 (padded, unpadded, URL-safe) normalize; zeros and junk do not")
    func identifiers() {
        #expect(OTLPIdentifier.spanId("EEE19B7EC3C1B174") == "eee19b7ec3c1b174")
        #expect(OTLPIdentifier.spanId("7uGbfsPBsXQ=") == "eee19b7ec3c1b174")
        #expect(OTLPIdentifier.spanId("7uGbfsPBsXQ") == "eee19b7ec3c1b174")
        #expect(OTLPIdentifier.traceId("W47/95gDgQPSabYzgT/GDA==") == "5b8efff798038103d269b633813fc60c")
        #expect(OTLPIdentifier.traceId("W47_95gDgQPSabYzgT_GDA") == "5b8efff798038103d269b633813fc60c")
        #expect(OTLPIdentifier.spanId("AAAAAAAAAAA=") == nil)
        #expect(OTLPIdentifier.spanId("") == nil)
        #expect(OTLPIdentifier.traceId("5b8efff798038103d269b633813fc60") == nil)
    }
}
