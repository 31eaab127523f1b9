/// The body of `POST /v1/logs` (`ExportLogsServiceRequest`) in OTLP/JSON.
public struct OTLPLogRequest: Codable, Sendable, Hashable {
    /// Records grouped by resource.
    public var resourceLogs: [OTLPResourceLogs]

    /// A request with `resourceLogs`.
    public init(resourceLogs: [OTLPResourceLogs]) { self.resourceLogs = resourceLogs }

    private enum CodingKeys: String, CodingKey { case resourceLogs }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resourceLogs = try container.decodeIfPresent([OTLPResourceLogs].self, forKey: .resourceLogs) ?? []
    }

    /// Log records in the request.
    public var recordCount: Int {
        resourceLogs.reduce(0) { $0 + $1.scopeLogs.reduce(0) { $0 + $1.logRecords.count } }
    }
}

/// The log records of one resource.
public struct OTLPResourceLogs: Codable, Sendable, Hashable {
    /// The producing entity.
    public var resource: OTLPResource?
    /// Records grouped by instrumentation scope.
    public var scopeLogs: [OTLPScopeLogs]
    /// Semantic-conventions schema of the resource.
    public var schemaUrl: String?

    /// Records of `resource`, grouped by scope.
    public init(resource: OTLPResource?, scopeLogs: [OTLPScopeLogs], schemaUrl: String? = nil) {
        self.resource = resource
        self.scopeLogs = scopeLogs
        self.schemaUrl = schemaUrl
    }

    private enum CodingKeys: String, CodingKey { case resource, scopeLogs, schemaUrl }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resource = try container.decodeIfPresent(OTLPResource.self, forKey: .resource)
        scopeLogs = try container.decodeIfPresent([OTLPScopeLogs].self, forKey: .scopeLogs) ?? []
        schemaUrl = try container.decodeIfPresent(String.self, forKey: .schemaUrl)
    }
}

/// The log records of one instrumentation scope.
public struct OTLPScopeLogs: Codable, Sendable, Hashable {
    /// The instrumenting library.
    public var scope: OTLPScope?
    /// The records.
    public var logRecords: [OTLPLogRecord]
    /// Semantic-conventions schema of the records.
    public var schemaUrl: String?

    /// `logRecords` from `scope`.
    public init(scope: OTLPScope?, logRecords: [OTLPLogRecord], schemaUrl: String? = nil) {
        self.scope = scope
        self.logRecords = logRecords
        self.schemaUrl = schemaUrl
    }

    private enum CodingKeys: String, CodingKey { case scope, logRecords, schemaUrl }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        scope = try container.decodeIfPresent(OTLPScope.self, forKey: .scope)
        logRecords = try container.decodeIfPresent([OTLPLogRecord].self, forKey: .logRecords) ?? []
        schemaUrl = try container.decodeIfPresent(String.self, forKey: .schemaUrl)
    }
}

/// OTLP's `LogRecord`. Severity numbers: 1–4 trace, 5–8 debug, 9–12 info, 13–16 warn,
/// 17–20 error, 21–24 fatal.
public struct OTLPLogRecord: Codable, Sendable, Hashable {
    /// When it happened, nanoseconds since 1970.
    public var timeUnixNano: OTLPInt64?
    /// When it was observed, nanoseconds since 1970.
    public var observedTimeUnixNano: OTLPInt64?
    /// Severity number (see the type's summary).
    public var severityNumber: OTLPEnumValue?
    /// Severity as text, e.g. `WARN`.
    public var severityText: String?
    /// The message or the event's data.
    public var body: OTLPAnyValue?
    /// Record attributes.
    public var attributes: [OTLPKeyValue]?
    /// Attributes the sender dropped.
    public var droppedAttributesCount: Int?
    /// W3C trace flags.
    public var flags: Int?
    /// Trace the record belongs to.
    public var traceId: String?
    /// Span the record belongs to.
    public var spanId: String?
    /// The event name for records that are events (OTLP 1.5+); older receivers ignore it.
    public var eventName: String?

    /// A record; optional fields default to absent.
    public init(timeUnixNano: Int64, observedTimeUnixNano: Int64? = nil, severityNumber: Int, severityText: String? = nil,
                body: OTLPAnyValue? = nil, attributes: [OTLPKeyValue]? = nil, traceId: String? = nil,
                spanId: String? = nil, eventName: String? = nil) {
        self.timeUnixNano = OTLPInt64(timeUnixNano)
        self.observedTimeUnixNano = observedTimeUnixNano.map { OTLPInt64($0) }
        self.severityNumber = OTLPEnumValue(severityNumber)
        self.severityText = severityText
        self.body = body
        self.attributes = attributes
        self.traceId = traceId
        self.spanId = spanId
        self.eventName = eventName
    }
}
