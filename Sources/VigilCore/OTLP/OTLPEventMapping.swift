import Foundation

/// How one Vigil event becomes one OTLP span or log record, and the reserved `vigil.*`
/// attributes that carry the envelope's context so an exported span comes back unchanged.
///
/// - `span` events map one to one onto spans (kind and status as integers).
/// - `network` events become client spans named `{method} {url.template}` with the HTTP
///   semantic-convention attributes and the phase timings as `vigil.network.*_ms`; the span
///   uses the trace and span id the request sent in `traceparent`, so it joins the backend's
///   trace.
/// - `log` events become log records with the matching severity number; every other event
///   (hang, frames, launch, crash, resource) becomes a log record named `vigil.<type>` whose
///   body is the payload's schema JSON.
public enum OTLPEventMapping {
    /// Attribute carrying the event id.
    public static let eventIdKey = "vigil.event.id"
    /// Attribute carrying the visible page.
    public static let pageKey = "vigil.page"
    /// Attribute carrying the app state.
    public static let appStateKey = "vigil.app_state"
    /// Attribute carrying Vigil's own network type (`wifi`, `cellular`, `wired`, `none`, …).
    public static let networkKey = "vigil.network"
    /// Semantic-convention attribute for the network type (`wifi`, `cell`, `wired`, `unavailable`).
    public static let connectionTypeKey = "network.connection.type"
    /// Prefix of attributes carrying the event's tags.
    public static let tagPrefix = "vigil.tag."

    // MARK: - Time

    /// Nanoseconds since 1970 of `date`, kept to the microsecond.
    public static func unixNanos(_ date: Date) -> Int64 {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard micros.isFinite, abs(micros) < 9.2e15 else { return 0 }
        return Int64(micros) * 1000
    }

    /// The date of a nanosecond timestamp, kept to the microsecond.
    public static func date(unixNanos nanos: Int64) -> Date {
        let micros = nanos / 1000
        return Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }

    // MARK: - Context attributes

    /// The envelope's context, tags and id as attributes.
    static func contextAttributes(of event: Event) -> [OTLPKeyValue] {
        var result = [OTLPKeyValue(key: eventIdKey, value: .string(event.id.uuidString))]
        if let page = event.context.page { result.append(OTLPKeyValue(key: pageKey, value: .string(page))) }
        if let state = event.context.appState {
            result.append(OTLPKeyValue(key: appStateKey, value: .string(state)))
        }
        if let network = event.context.network {
            result.append(OTLPKeyValue(key: networkKey, value: .string(network)))
            result.append(OTLPKeyValue(key: connectionTypeKey, value: .string(connectionType(network))))
        }
        for name in event.tags.keys.sorted() {
            result.append(OTLPKeyValue(key: tagPrefix + name, value: .string(event.tags[name] ?? "")))
        }
        return result
    }

    /// Splits attributes into the envelope's parts and the rest.
    static func splitContext(_ attributes: [OTLPKeyValue])
        -> (id: UUID?, context: EventContext, tags: [String: String], rest: [OTLPKeyValue]) {
        var id: UUID?
        var context = EventContext()
        var tags: [String: String] = [:]
        var rest: [OTLPKeyValue] = []
        var connectionType: String?
        for attribute in attributes {
            switch attribute.key {
            case eventIdKey: id = attribute.value.stringValue.flatMap(UUID.init(uuidString:))
            case pageKey: context.page = attribute.value.stringValue
            case appStateKey: context.appState = attribute.value.stringValue
            case networkKey: context.network = attribute.value.stringValue
            case connectionTypeKey: connectionType = attribute.value.stringValue
            default:
                if attribute.key.hasPrefix(tagPrefix), attribute.key.utf8.count > tagPrefix.utf8.count {
                    tags[String(attribute.key.dropFirst(tagPrefix.count))] = attribute.value.attributeValue.description
                } else {
                    rest.append(attribute)
                }
            }
        }
        if context.network == nil, let connectionType { context.network = networkType(connectionType) }
        return (id, context, tags, rest)
    }

    static func connectionType(_ network: String) -> String {
        switch network {
        case "cellular": return "cell"
        case "none": return "unavailable"
        default: return network
        }
    }

    static func networkType(_ connectionType: String) -> String {
        switch connectionType {
        case "cell": return "cellular"
        case "unavailable": return "none"
        default: return connectionType
        }
    }

    // MARK: - Spans

    /// The OTLP span of a `span` or `network` event; nil for other types.
    public static func span(for event: Event) -> OTLPSpan? {
        switch event.payload {
        case .span(let span): return spanFromSpan(span, event: event)
        case .network(let network): return spanFromNetwork(network, event: event)
        default: return nil
        }
    }

    static func kindNumber(_ kind: SpanKind?) -> Int {
        switch kind {
        case nil: return 0
        case .internal: return 1
        case .server: return 2
        case .client: return 3
        case .producer: return 4
        case .consumer: return 5
        }
    }

    static func kind(number: Int) -> SpanKind? {
        switch number {
        case 1: return .internal
        case 2: return .server
        case 3: return .client
        case 4: return .producer
        case 5: return .consumer
        default: return nil
        }
    }

    static func statusNumber(_ status: SpanStatus) -> Int {
        switch status {
        case .unset: return 0
        case .ok: return 1
        case .error: return 2
        }
    }

    static func status(number: Int) -> SpanStatus {
        switch number {
        case 1: return .ok
        case 2: return .error
        default: return .unset
        }
    }

    private static func spanFromSpan(_ span: SpanPayload, event: Event) -> OTLPSpan {
        var attributes = span.attributes.keys.sorted().map { OTLPKeyValue(key: $0, value: OTLPAnyValue(span.attributes[$0]!)) }
        attributes += contextAttributes(of: event)
        let status = span.status == .unset && span.statusMessage == nil
            ? nil : OTLPStatus(code: statusNumber(span.status), message: span.statusMessage)
        return OTLPSpan(traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId, name: span.name,
                        kind: kindNumber(span.kind), startTimeUnixNano: unixNanos(span.start),
                        endTimeUnixNano: unixNanos(span.end), attributes: attributes, status: status)
    }

    private static func spanFromNetwork(_ network: NetworkPayload, event: Event) -> OTLPSpan {
        let parts = URLParts(network.urlTemplate)
        let target = String(parts.path) + (parts.query.map { "?" + $0 } ?? "")
        var attributes: [OTLPKeyValue] = [
            OTLPKeyValue(key: "http.request.method", value: .string(network.method)),
            OTLPKeyValue(key: "url.template", value: .string(target)),
            OTLPKeyValue(key: "vigil.url_template", value: .string(network.urlTemplate)),
            OTLPKeyValue(key: "server.address", value: .string(network.host)),
        ]
        if let port = parts.port { attributes.append(OTLPKeyValue(key: "server.port", value: .int(Int64(port)))) }
        if !parts.scheme.isEmpty { attributes.append(OTLPKeyValue(key: "url.scheme", value: .string(parts.scheme))) }
        if let status = network.status {
            attributes.append(OTLPKeyValue(key: "http.response.status_code", value: .int(Int64(status))))
        }
        let failed = network.error != nil || (network.status ?? 0) >= 400
        if let error = network.error {
            attributes.append(OTLPKeyValue(key: "error.type", value: .string(error)))
        } else if let status = network.status, status >= 400 {
            attributes.append(OTLPKeyValue(key: "error.type", value: .string(String(status))))
        }
        attributes.append(OTLPKeyValue(key: "http.request.size", value: .int(network.bytesSent)))
        attributes.append(OTLPKeyValue(key: "http.response.size", value: .int(network.bytesReceived)))
        if let name = network.protocol {
            attributes.append(OTLPKeyValue(key: "network.protocol.name", value: .string("http")))
            if let version = protocolVersion(name) {
                attributes.append(OTLPKeyValue(key: "network.protocol.version", value: .string(version)))
            }
            attributes.append(OTLPKeyValue(key: "vigil.network.protocol", value: .string(name)))
        }
        let timings = network.timings
        let phases: [(String, Double?)] = [("dns", timings.dns), ("connect", timings.connect), ("tls", timings.tls),
                                           ("request", timings.request), ("ttfb", timings.ttfb),
                                           ("response", timings.response), ("total", timings.total)]
        for (name, value) in phases {
            if let value { attributes.append(OTLPKeyValue(key: "vigil.network.\(name)_ms", value: .double(value))) }
        }
        if let reused = network.reusedConnection {
            attributes.append(OTLPKeyValue(key: "vigil.network.reused_connection", value: .bool(reused)))
        }
        for (prefix, headers) in [("http.request.header.", network.requestHeaders),
                                  ("http.response.header.", network.responseHeaders)] {
            guard let headers else { continue }
            for name in headers.keys.sorted() {
                attributes.append(OTLPKeyValue(key: prefix + name, value: .array([.string(headers[name] ?? "")])))
            }
        }
        attributes += contextAttributes(of: event)
        let traceId = network.traceId.flatMap(OTLPIdentifier.traceId) ?? derivedTraceId(event.id)
        let spanId = network.spanId.flatMap(OTLPIdentifier.spanId) ?? derivedSpanId(event.id)
        let start = unixNanos(event.time)
        let end = start &+ Int64(max(0, min(network.timings.total, 1e9)) * 1_000_000)
        return OTLPSpan(traceId: traceId, spanId: spanId, name: "\(network.method) \(target)", kind: 3,
                        startTimeUnixNano: start, endTimeUnixNano: end, attributes: attributes,
                        status: failed ? OTLPStatus(code: 2, message: network.error) : nil)
    }

    static func protocolVersion(_ name: String) -> String? {
        switch name.lowercased() {
        case "http/1.0": return "1.0"
        case "http/1.1": return "1.1"
        case "h2", "http/2", "http/2.0": return "2"
        case "h3", "http/3": return "3"
        default: return nil
        }
    }

    /// A trace id for a request that sent none: the event id's 16 bytes.
    static func derivedTraceId(_ id: UUID) -> String {
        let hex = id.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return TraceIdentifier.isValid(hex, hexDigits: 32) ? hex : "00000000000000000000000000000001"
    }

    static func derivedSpanId(_ id: UUID) -> String {
        let hex = StableUUID.make(from: "span:" + id.uuidString).uuidString.lowercased()
            .replacingOccurrences(of: "-", with: "")
        let span = String(hex.prefix(16))
        return TraceIdentifier.isValid(span, hexDigits: 16) ? span : "0000000000000001"
    }

    // MARK: - Log records

    /// OpenTelemetry severity number of a log level (the first number of each range).
    public static func severityNumber(_ level: LogLevel) -> Int {
        switch level {
        case .trace: return 1
        case .debug: return 5
        case .info: return 9
        case .warn: return 13
        case .error: return 17
        case .fatal: return 21
        }
    }

    /// The log record of any event other than `span` and `network`; nil for those.
    public static func logRecord(for event: Event) -> OTLPLogRecord? {
        let time = unixNanos(event.time)
        var attributes = [OTLPKeyValue(key: "vigil.event.type", value: .string(event.type.rawValue))]
        switch event.payload {
        case .span, .network:
            return nil
        case .log(let log):
            if let extra = log.attributes {
                attributes += extra.keys.sorted().map { OTLPKeyValue(key: $0, value: OTLPAnyValue(extra[$0]!)) }
            }
            attributes += contextAttributes(of: event)
            return OTLPLogRecord(timeUnixNano: time, severityNumber: severityNumber(log.level),
                                 severityText: log.level.rawValue.uppercased(), body: .string(log.message),
                                 attributes: attributes)
        default:
            attributes += contextAttributes(of: event)
            let (severity, text) = severity(of: event.payload)
            return OTLPLogRecord(timeUnixNano: time, severityNumber: severity, severityText: text,
                                 body: .string(payloadJSON(event.payload)), attributes: attributes,
                                 eventName: "vigil.\(event.type.rawValue)")
        }
    }

    private static func severity(of payload: EventPayload) -> (Int, String) {
        switch payload {
        case .crash: return (21, "FATAL")
        case .hang(let hang): return hang.kind == .fatal ? (17, "ERROR") : (13, "WARN")
        default: return (9, "INFO")
        }
    }

    /// The payload in the event schema's JSON form.
    static func payloadJSON(_ payload: EventPayload) -> String {
        let encoder = EventJSON.makeEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data?
        switch payload {
        case .hang(let body): data = try? encoder.encode(body)
        case .frames(let body): data = try? encoder.encode(body)
        case .launch(let body): data = try? encoder.encode(body)
        case .network(let body): data = try? encoder.encode(body)
        case .crash(let body): data = try? encoder.encode(body)
        case .resource(let body): data = try? encoder.encode(body)
        case .span(let body): data = try? encoder.encode(body)
        case .log(let body): data = try? encoder.encode(body)
        case .session(let body): data = try? encoder.encode(body)
        }
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
