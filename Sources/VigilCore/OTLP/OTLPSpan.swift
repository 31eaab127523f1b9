/// OTLP's `Span` in its JSON form. Ids are kept as the text that was sent (hex, or base64 from
/// some exporters) and normalized by ``OTLPIdentifier`` when imported; enums are integers.
public struct OTLPSpan: Codable, Sendable, Hashable {
    /// 16-byte trace id as sent.
    public var traceId: String
    /// 8-byte span id as sent.
    public var spanId: String
    /// W3C `tracestate`.
    public var traceState: String?
    /// Empty or absent for a root span.
    public var parentSpanId: String?
    /// W3C trace flags and OTLP's parent-is-remote bits.
    public var flags: Int?
    /// Operation name.
    public var name: String
    /// `SpanKind`: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer.
    public var kind: OTLPEnumValue?
    /// Start, nanoseconds since 1970.
    public var startTimeUnixNano: OTLPInt64
    /// End, nanoseconds since 1970.
    public var endTimeUnixNano: OTLPInt64
    /// Span attributes.
    public var attributes: [OTLPKeyValue]?
    /// Attributes the sender dropped.
    public var droppedAttributesCount: Int?
    /// Timestamped annotations.
    public var events: [OTLPSpanEvent]?
    /// Events the sender dropped.
    public var droppedEventsCount: Int?
    /// Links to spans of other traces.
    public var links: [OTLPSpanLink]?
    /// Links the sender dropped.
    public var droppedLinksCount: Int?
    /// Outcome; absent means unset.
    public var status: OTLPStatus?

    /// A span; optional fields default to absent.
    public init(traceId: String, spanId: String, parentSpanId: String? = nil, name: String, kind: Int? = nil,
                startTimeUnixNano: Int64, endTimeUnixNano: Int64, attributes: [OTLPKeyValue]? = nil,
                status: OTLPStatus? = nil, events: [OTLPSpanEvent]? = nil, links: [OTLPSpanLink]? = nil) {
        self.traceId = traceId
        self.spanId = spanId
        self.parentSpanId = parentSpanId
        self.name = name
        self.kind = kind.map { OTLPEnumValue($0) }
        self.startTimeUnixNano = OTLPInt64(startTimeUnixNano)
        self.endTimeUnixNano = OTLPInt64(endTimeUnixNano)
        self.attributes = attributes
        self.status = status
        self.events = events
        self.links = links
    }

    private enum CodingKeys: String, CodingKey {
        case traceId, spanId, traceState, parentSpanId, flags, name, kind, startTimeUnixNano, endTimeUnixNano
        case attributes, droppedAttributesCount, events, droppedEventsCount, links, droppedLinksCount, status
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        traceId = try container.decodeIfPresent(String.self, forKey: .traceId) ?? ""
        spanId = try container.decodeIfPresent(String.self, forKey: .spanId) ?? ""
        traceState = try container.decodeIfPresent(String.self, forKey: .traceState)
        parentSpanId = try container.decodeIfPresent(String.self, forKey: .parentSpanId)
        flags = try container.decodeIfPresent(Int.self, forKey: .flags)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? ""
        kind = try container.decodeIfPresent(OTLPEnumValue.self, forKey: .kind)
        startTimeUnixNano = try container.decodeIfPresent(OTLPInt64.self, forKey: .startTimeUnixNano) ?? 0
        endTimeUnixNano = try container.decodeIfPresent(OTLPInt64.self, forKey: .endTimeUnixNano) ?? 0
        attributes = try container.decodeIfPresent([OTLPKeyValue].self, forKey: .attributes)
        droppedAttributesCount = try container.decodeIfPresent(Int.self, forKey: .droppedAttributesCount)
        events = try container.decodeIfPresent([OTLPSpanEvent].self, forKey: .events)
        droppedEventsCount = try container.decodeIfPresent(Int.self, forKey: .droppedEventsCount)
        links = try container.decodeIfPresent([OTLPSpanLink].self, forKey: .links)
        droppedLinksCount = try container.decodeIfPresent(Int.self, forKey: .droppedLinksCount)
        status = try container.decodeIfPresent(OTLPStatus.self, forKey: .status)
    }
}

/// OTLP's span `Status`: code 0 unset, 1 ok, 2 error.
public struct OTLPStatus: Codable, Sendable, Hashable {
    /// 0 unset, 1 ok, 2 error.
    public var code: OTLPEnumValue?
    /// Error description.
    public var message: String?

    /// A status with `code` and an optional message.
    public init(code: Int, message: String? = nil) {
        self.code = OTLPEnumValue(code)
        self.message = message
    }
}

/// OTLP's `Span.Event`: a timestamped annotation inside a span.
public struct OTLPSpanEvent: Codable, Sendable, Hashable {
    /// When, nanoseconds since 1970.
    public var timeUnixNano: OTLPInt64?
    /// Event name.
    public var name: String?
    /// Event attributes.
    public var attributes: [OTLPKeyValue]?
    /// Attributes the sender dropped.
    public var droppedAttributesCount: Int?
}

/// OTLP's `Span.Link`: a reference to a span of another trace.
public struct OTLPSpanLink: Codable, Sendable, Hashable {
    /// The linked span's trace id.
    public var traceId: String?
    /// The linked span's id.
    public var spanId: String?
    /// The linked span's `tracestate`.
    public var traceState: String?
    /// Link attributes.
    public var attributes: [OTLPKeyValue]?
    /// Attributes the sender dropped.
    public var droppedAttributesCount: Int?
    /// Trace flags of the linked span.
    public var flags: Int?
}
