/// OTLP's `Resource`: the entity producing telemetry (the app on one device, a backend service).
public struct OTLPResource: Codable, Sendable, Hashable {
    /// Resource attributes (`service.name`, `os.type`, …).
    public var attributes: [OTLPKeyValue]
    /// Attributes the sender dropped.
    public var droppedAttributesCount: Int?

    /// A resource with `attributes`.
    public init(attributes: [OTLPKeyValue], droppedAttributesCount: Int? = nil) {
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
    }

    private enum CodingKeys: String, CodingKey { case attributes, droppedAttributesCount }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        attributes = try container.decodeIfPresent([OTLPKeyValue].self, forKey: .attributes) ?? []
        droppedAttributesCount = try container.decodeIfPresent(Int.self, forKey: .droppedAttributesCount)
    }
}

/// OTLP's `InstrumentationScope`: the library that produced a group of spans or records.
public struct OTLPScope: Codable, Sendable, Hashable {
    /// Library name, e.g. `vigil`.
    public var name: String
    /// Library version.
    public var version: String?
    /// Scope attributes.
    public var attributes: [OTLPKeyValue]?

    /// A scope named `name`.
    public init(name: String, version: String? = nil, attributes: [OTLPKeyValue]? = nil) {
        self.name = name
        self.version = version
        self.attributes = attributes
    }

    private enum CodingKeys: String, CodingKey { case name, version, attributes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? ""
        version = try container.decodeIfPresent(String.self, forKey: .version)
        attributes = try container.decodeIfPresent([OTLPKeyValue].self, forKey: .attributes)
    }
}
