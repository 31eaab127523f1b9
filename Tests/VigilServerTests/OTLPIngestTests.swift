import Foundation
import Testing
import VigilCore
import VigilTestSupport
import VigilTransport
@testable import VigilServer

extension BothStores {
    /// `POST /v1/traces` (OTLP/HTTP JSON) on both databases, and the SDK's exporter against it.
    @Suite("OTLP traces endpoint")
    struct OTLPIngestTests {
        private func otlpHeaders(_ server: TestServer, gzip: Bool = false) -> [String: String] {
            var headers = ["Authorization": "Bearer \(server.ingestKey)", "Content-Type": "application/json"]
            if gzip { headers["Content-Encoding"] = "gzip" }
            return headers
        }

        /// The stored event of `id` rebuilt from its columns, the way the API and the dashboard
        /// read it back.
        private func stored(_ server: TestServer, _ id: UUID) throws -> (StoredEvent, SpanPayload, EventContext?) {
            let row = try #require(try server.store.storedEvent(projectID: server.project.id, id: id.uuidString))
            let span = try EventJSON.makeDecoder().decode(SpanPayload.self, from: Data(row.record.payloadJSON.utf8))
            let context = try row.record.contextJSON.map { try JSONDecoder().decode(EventContext.self, from: Data($0.utf8)) }
            return (row, span, context)
        }

        @Test("the SDK's exporter posts to /v1/traces and what is stored equals what was sent", arguments: StoreKind.allCases)
        func exporterRoundTrip(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let session = UUID()
            var events = (0..<6).map { SampleEvents.make(.span, index: $0, session: session) }
            for index in events.indices {
                events[index].context = EventContext(page: "Checkout", appState: "foreground", network: index % 2 == 0 ? "wifi" : "cellular")
                events[index].tags = ["experiment": "b", "attempt": "\(index)"]
            }
            let network = Event(time: SampleEvents.time, session: session, app: SampleEvents.app, device: SampleEvents.device,
                                context: EventContext(page: "Checkout", network: "wifi"),
                                payload: .network(NetworkPayload(method: "POST", urlTemplate: "https://api.example.com/orders/:id",
                                                                 host: "api.example.com", status: 502, bytesSent: 300, bytesReceived: 40,
                                                                 timings: NetworkTimings(dns: 4, ttfb: 180, total: 230),
                                                                 traceId: "0af7651916cd43dd8448eb211c80319c",
                                                                 spanId: "b7ad6b7169203331")))
            let exporter = OTLPExporter(configuration: OTLPExporterConfiguration(
                endpoint: server.client.base, headers: ["Authorization": "Bearer \(server.ingestKey)"], flushIntervalSeconds: 60),
                seed: 1)
            for event in events + [network] { exporter.emit(event) }
            #expect(exporter.flushAndWait(timeoutSeconds: 30))
            let statistics = exporter.statistics
            #expect(statistics.spansExported == 7 && statistics.rejected == 0 && statistics.failedAttempts == 0)

            for event in events {
                guard case .span(let sent) = event.payload else { continue }
                let (row, span, context) = try stored(server, event.id)
                #expect(row.record.type == "span")
                #expect(span == sent, "the stored span is the span sent")
                #expect(row.record.appID == event.app.id && row.record.appVersion == event.app.version
                    && row.record.appBuild == event.app.build)
                #expect(row.record.os == event.device.os && row.record.osVersion == event.device.osVersion
                    && row.record.deviceModel == event.device.model)
                #expect(row.record.sessionID.uppercased() == session.uuidString)
                #expect(row.record.occurredAt == Int64((event.time.timeIntervalSince1970 * 1000).rounded()))
                #expect(try JSONDecoder().decode([String: String].self, from: Data(row.record.tagsJSON.utf8)) == event.tags)
                #expect(row.record.page == "Checkout" && context == event.context)
            }
            // The request became a client span on the trace it sent to the backend.
            let rows = try server.store.database.read { connection in
                try connection.query("SELECT payload_json FROM apm_event WHERE project_id = ? AND type = 'span'",
                                     [.integer(server.project.id)])
            }
            let spans = try rows.map { try EventJSON.makeDecoder().decode(SpanPayload.self, from: Data(($0.string("payload_json") ?? "").utf8)) }
            let client = try #require(spans.first { $0.name.hasPrefix("POST ") })
            #expect(client.traceId == "0af7651916cd43dd8448eb211c80319c" && client.spanId == "b7ad6b7169203331")
            #expect(client.name == "POST /orders/:id" && client.kind == .client && client.status == .error)
            #expect(client.attributes["http.response.status_code"] == .int(502))
            // Schema v1 attributes are plain JSON values: an integral double reads back as an integer.
            #expect([.double(180), .int(180)].contains(client.attributes["vigil.network.ttfb_ms"]))
            // Exporting the same events again stores nothing new.
            let again = OTLPExporter(configuration: exporter.configuration, seed: 2)
            for event in events { again.emit(event) }
            #expect(again.flushAndWait(timeoutSeconds: 30))
            #expect(try server.store.eventCounts(projectID: server.project.id).pending == 7)
        }

        @Test("the OpenTelemetry proto examples' trace document is accepted, gzip or not", arguments: StoreKind.allCases)
        func protoExample(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let plain = try server.client.post("/v1/traces", Data(OTLPDocuments.traceExample.utf8), headers: otlpHeaders(server))
            #expect(plain.status == 200, "\(plain)")
            #expect(plain.text == "{}")
            let zipped = try server.client.post("/v1/traces", try GzipDeflater.compress(Data(OTLPDocuments.traceExample.utf8)),
                                                headers: otlpHeaders(server, gzip: true))
            #expect(zipped.status == 200 && zipped.text == "{}", "\(zipped)")
            #expect(try server.store.eventCounts(projectID: server.project.id).pending == 2, "the retry stored nothing new")
            let rows = try server.store.database.read { connection in
                try connection.query("SELECT app_id, device_model, payload_json FROM apm_event WHERE project_id = ? ORDER BY occurred_at",
                                     [.integer(server.project.id)])
            }
            #expect(rows.map { $0.string("app_id") } == ["checkout-api", "checkout-api"])
            #expect(rows.first?.string("device_model") == "api-7f9c")
            let server0 = try EventJSON.makeDecoder().decode(SpanPayload.self, from: Data((rows[0].string("payload_json") ?? "").utf8))
            #expect(server0.traceId == "5b8efff798038103d269b633813fc60c" && server0.kind == .server)
        }

        @Test("bad spans are refused by partial success; bad documents and media types by status", arguments: StoreKind.allCases)
        func refusals(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let mixed = """
            {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"api"}}]},
             "scopeSpans":[{"spans":[
              {"traceId":"W47/95gDgQPSabYzgT/GDA==","spanId":"7uGbfsPBsXQ=","name":"ok","startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712660500000000"},
              {"traceId":"00000000000000000000000000000000","spanId":"eee19b7ec3c1b174","name":"zero","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}
            """
            let partial = try server.client.post("/v1/traces", Data(mixed.utf8), headers: otlpHeaders(server))
            #expect(partial.status == 200, "\(partial)")
            let success = try #require(partial.json["partialSuccess"] as? [String: Any])
            #expect(success["rejectedSpans"] as? String == "1")
            #expect((success["errorMessage"] as? String)?.contains("resourceSpans[0].scopeSpans[0].spans[1].traceId") == true)
            #expect(try server.store.eventCounts(projectID: server.project.id).pending == 1)

            let malformed = try server.client.post("/v1/traces", Data(#"{"resourceSpans": {"x": 1}}"#.utf8), headers: otlpHeaders(server))
            #expect(malformed.status == 400)
            #expect(malformed.json["code"] as? Int == 3)
            #expect((malformed.json["message"] as? String)?.contains("resourceSpans") == true)

            var protobuf = otlpHeaders(server)
            protobuf["Content-Type"] = "application/x-protobuf"
            #expect(try server.client.post("/v1/traces", Data([0x0A, 0x00]), headers: protobuf).status == 415)
            #expect(try server.client.post("/v1/traces", Data("{}".utf8), headers: ["Content-Type": "application/json"]).status == 401)
        }
    }
}
