import Foundation

/// Turns an OTLP traces request (from Vigil's exporter, an OpenTelemetry SDK or a collector)
/// into Vigil `span` events: resource attributes give the app, device and session, the
/// reserved `vigil.*` attributes give back the context, tags and event id Vigil exported,
/// every other resource and scope attribute is kept on the span.
///
/// Ids are accepted in hex (any case) or base64. A span with a bad id, a missing start or an
/// end before its start is refused with a problem naming its path; the rest are kept. Span
/// events and links have no place in schema v1 and are counted, not kept. Event ids are the
/// exported `vigil.event.id`, or derived from the trace and span id, so a retried export
/// stores each span once.
public struct OTLPSpanImporter: Sendable {
    /// Spans read from one request at most; the rest are refused as one problem.
    public var maximumSpans: Int

    /// An importer reading at most `maximumSpans` spans per request.
    public init(maximumSpans: Int = 10_000) {
        self.maximumSpans = maximumSpans
    }

    /// The outcome of one import.
    public struct Result: Sendable {
        /// The events, in document order.
        public var events: [Event] = []
        /// Refused spans.
        public var problems: [OTLPImportProblem] = []
        /// Spans refused (each problem is one span, except the overflow problem).
        public var rejectedSpans = 0
        /// Span events (`Span.events`) not kept.
        public var droppedSpanEvents = 0
        /// Span links not kept.
        public var droppedLinks = 0
    }

    /// Imports `request`.
    public func events(from request: OTLPTraceRequest) -> Result {
        var result = Result()
        var seen = 0
        for (resourceIndex, resourceSpans) in request.resourceSpans.enumerated() {
            let resourceAttributes = resourceSpans.resource?.attributes ?? []
            let app = OTLPResourceMapping.app(from: resourceAttributes)
            let device = OTLPResourceMapping.device(from: resourceAttributes)
            let session = OTLPResourceMapping.session(from: resourceAttributes)
            let extraResource = resourceAttributes.filter { !OTLPResourceMapping.knownKeys.contains($0.key) }
            for (scopeIndex, scopeSpans) in resourceSpans.scopeSpans.enumerated() {
                var scopeAttributes: [OTLPKeyValue] = []
                if let scope = scopeSpans.scope, !scope.name.isEmpty, scope.name != "vigil" {
                    scopeAttributes.append(OTLPKeyValue(key: "otel.scope.name", value: .string(scope.name)))
                    if let version = scope.version, !version.isEmpty {
                        scopeAttributes.append(OTLPKeyValue(key: "otel.scope.version", value: .string(version)))
                    }
                }
                for (spanIndex, span) in scopeSpans.spans.enumerated() {
                    seen += 1
                    if seen > maximumSpans {
                        result.rejectedSpans += 1
                        continue
                    }
                    let path = "resourceSpans[\(resourceIndex)].scopeSpans[\(scopeIndex)].spans[\(spanIndex)]"
                    switch event(from: span, app: app, device: device, session: session,
                                 inherited: extraResource + scopeAttributes, path: path) {
                    case .success(let event):
                        result.events.append(event)
                        result.droppedSpanEvents += span.events?.count ?? 0
                        result.droppedLinks += span.links?.count ?? 0
                    case .failure(let problem):
                        result.problems.append(problem)
                        result.rejectedSpans += 1
                    }
                }
            }
        }
        if seen > maximumSpans {
            result.problems.append(OTLPImportProblem(path: "resourceSpans", field: "spans",
                                                     reason: "more than \(maximumSpans) spans in one request"))
        }
        return result
    }

    private func event(from span: OTLPSpan, app: AppInfo, device: DeviceInfo, session: UUID,
                       inherited: [OTLPKeyValue], path: String) -> Swift.Result<Event, OTLPImportProblem> {
        func problem(_ field: String, _ reason: String) -> Swift.Result<Event, OTLPImportProblem> {
            .failure(OTLPImportProblem(path: path, field: field, reason: reason))
        }
        guard let traceId = OTLPIdentifier.traceId(span.traceId) else {
            return problem("traceId", "not a 16-byte id in hex or base64: \"\(span.traceId.prefix(48))\"")
        }
        guard let spanId = OTLPIdentifier.spanId(span.spanId) else {
            return problem("spanId", "not an 8-byte id in hex or base64: \"\(span.spanId.prefix(32))\"")
        }
        var parentSpanId: String?
        if let parent = span.parentSpanId, !parent.isEmpty {
            guard let normalized = OTLPIdentifier.spanId(parent) else {
                return problem("parentSpanId", "not an 8-byte id in hex or base64: \"\(parent.prefix(32))\"")
            }
            parentSpanId = normalized
        }
        guard span.startTimeUnixNano.value > 0 else { return problem("startTimeUnixNano", "missing") }
        guard span.endTimeUnixNano.value >= span.startTimeUnixNano.value else {
            return problem("endTimeUnixNano", "before startTimeUnixNano")
        }
        let split = OTLPEventMapping.splitContext((span.attributes ?? []))
        var attributes: [String: AttributeValue] = [:]
        for attribute in inherited + split.rest where !attribute.key.isEmpty {
            attributes[attribute.key] = attribute.value.attributeValue
        }
        let status = OTLPEventMapping.status(number: span.status?.code?.value ?? 0)
        let message = span.status?.message.flatMap { $0.isEmpty ? nil : $0 }
        let payload = SpanPayload(traceId: traceId, spanId: spanId, parentSpanId: parentSpanId, name: span.name,
                                  kind: OTLPEventMapping.kind(number: span.kind?.value ?? 0),
                                  start: OTLPEventMapping.date(unixNanos: span.startTimeUnixNano.value),
                                  end: OTLPEventMapping.date(unixNanos: span.endTimeUnixNano.value),
                                  status: status, statusMessage: message, attributes: attributes)
        let id = split.id ?? StableUUID.make(from: "otlp-span:\(traceId):\(spanId)")
        return .success(Event(id: id, time: payload.start, session: session, app: app, device: device,
                              context: split.context, tags: split.tags, payload: .span(payload)))
    }
}
