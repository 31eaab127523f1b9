import Foundation
import VigilCore

/// `POST /v1/traces`: OpenTelemetry traces in OTLP/HTTP JSON (gzip allowed, hex or base64 ids),
/// stored as `span` events of the ingest key's project, so that a backend's spans and the app's
/// network requests meet on one trace id. Documented in `docs/network.md`.
///
/// Answers follow OTLP/HTTP: `200 {}` when every span was stored (or already held), `200` with
/// `partialSuccess` (`rejectedSpans`, `errorMessage`) when some were refused, `400` with a
/// `google.rpc.Status` JSON body (`code` 3, INVALID_ARGUMENT) for a document that is not OTLP
/// JSON, `415` for protobuf bodies (this server reads the JSON encoding only).
enum OTLPRoutes {
    /// `google.rpc.Code.INVALID_ARGUMENT`.
    static let invalidArgument = 3

    static func install(into router: inout HTTPRouter, context: ServerContext) {
        let body = BodyPolicy(maxBytes: context.options.eventsMaxBytes, maxDecodedBytes: context.options.eventsMaxDecodedBytes)
        router.add("POST", "/v1/traces", name: "otlp-traces", body: body, authorize: context.ingestKeyCheck) { request in
            let project = try context.ingestProject(request)
            if let type = request.mediaType, type != "application/json" {
                throw HTTPError.unsupportedMediaType(
                    "Content-Type \(type.prefix(60)) is not accepted: this server reads OTLP/HTTP JSON "
                        + "(application/json); set the exporter's protocol to http/json")
            }
            let document: OTLPTraceRequest
            do {
                document = try OTLPJSON.decodeTraces(request.bodyData)
            } catch {
                return status(400, "not an OTLP/JSON traces request: \(error)")
            }
            let imported = OTLPSpanImporter().events(from: document)
            var outcome = EventIngestor.Outcome()
            if !imported.events.isEmpty {
                outcome = try context.ingestor.ingest(try EventJSON.encodeLines(imported.events), projectID: project.id)
                context.metrics.recordIngest(outcome)
                if outcome.stored > outcome.processed { context.processor.wake() }
            }
            let rejected = imported.rejectedSpans + outcome.rejected.count
            guard rejected > 0 else { return .json(Data("{}".utf8)) }
            let reasons = imported.problems.map(\.description) + outcome.rejected.map { rejection in
                let span = imported.events.indices.contains(rejection.index) ? "span \(rejection.index)" : "a span"
                return "\(span): \(rejection.reason)"
            }
            let answer = OTLPExportResponse(partialSuccess: .init(
                rejectedSpans: Int64(rejected), errorMessage: String(reasons.prefix(20).joined(separator: "; ").prefix(4000))))
            return .json(try OTLPJSON.encode(answer))
        }
    }

    /// An OTLP error answer: the status and a JSON `google.rpc.Status`.
    static func status(_ code: Int, _ message: String) -> HTTPResponse {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("code"); writer.number(invalidArgument)
        writer.key("message"); writer.string(String(message.prefix(4000)))
        writer.endObject()
        return .json(writer.data, status: code)
    }
}
