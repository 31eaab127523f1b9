/// The body of `POST /v1/traces` (`ExportTraceServiceRequest`) in OTLP/JSON.
public struct OTLPTraceRequest: Codable, Sendable, Hashable {
    /// Spans grouped by resource.
    public var resourceSpans: [OTLPResourceSpans]

    /// A request with `resourceSpans`.
    public init(resourceSpans: [OTLPResourceSpans]) { self.resourceSpans = resourceSpans }

    private enum CodingKeys: String, CodingKey { case resourceSpans }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resourceSpans = try container.decodeIfPresent([OTLPResourceSpans].self, forKey: .resourceSpans) ?? []
    }

    /// Spans in the request.
    public var spanCount: Int {
        resourceSpans.reduce(0) { $0 + $1.scopeSpans.reduce(0) { $0 + $1.spans.count } }
    }
}

/// The spans of one resource.
public struct OTLPResourceSpans: Codable, Sendable, Hashable {
    /// The producing entity.
    public var resource: OTLPResource?
    /// Spans grouped by instrumentation scope.
    public var scopeSpans: [OTLPScopeSpans]
    /// Semantic-conventions schema of the resource.
    public var schemaUrl: String?

    /// Spans of `resource`, grouped by scope.
    public init(resource: OTLPResource?, scopeSpans: [OTLPScopeSpans], schemaUrl: String? = nil) {
        self.resource = resource
        self.scopeSpans = scopeSpans
        self.schemaUrl = schemaUrl
    }

    private enum CodingKeys: String, CodingKey { case resource, scopeSpans, schemaUrl }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resource = try container.decodeIfPresent(OTLPResource.self, forKey: .resource)
        scopeSpans = try container.decodeIfPresent([OTLPScopeSpans].self, forKey: .scopeSpans) ?? []
        schemaUrl = try container.decodeIfPresent(String.self, forKey: .schemaUrl)
    }
}

/// The spans of one instrumentation scope.
public struct OTLPScopeSpans: Codable, Sendable, Hashable {
    /// The instrumenting library.
    public var scope: OTLPScope?
    /// The spans.
    public var spans: [OTLPSpan]
    /// Semantic-conventions schema of the spans.
    public var schemaUrl: String?

    /// `spans` from `scope`.
    public init(scope: OTLPScope?, spans: [OTLPSpan], schemaUrl: String? = nil) {
        self.scope = scope
        self.spans = spans
        self.schemaUrl = schemaUrl
    }

    private enum CodingKeys: String, CodingKey { case scope, spans, schemaUrl }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        scope = try container.decodeIfPresent(OTLPScope.self, forKey: .scope)
        spans = try container.decodeIfPresent([OTLPSpan].self, forKey: .spans) ?? []
        schemaUrl = try container.decodeIfPresent(String.self, forKey: .schemaUrl)
    }
}
