import Foundation

/// One telemetry event in schema version 1: the envelope every producer writes and the server
/// stores, with a type-specific ``payload``.
///
/// Encode and decode with ``EventJSON`` so that timestamps use the schema's RFC 3339 form.
/// Unknown fields are ignored on read; an unknown `type` is an error.
public struct Event: Sendable, Hashable, Identifiable {
    /// The schema version this library writes.
    public static let currentSchema = 1

    /// Schema version of the envelope.
    public var schema: Int
    /// Stable id; a retried upload carries the same id, and the server stores it once.
    public var id: UUID
    /// When the event happened (wall clock).
    public var time: Date
    /// Id of the app run that produced the event.
    public var session: UUID
    /// Id of the app's install on this device: a random UUID the SDK keeps in its data directory
    /// (never derived from hardware; the app may reset it). Optional in schema 1.
    public var install: UUID?
    /// The app's user id, as the app gave it: by default a SHA-256 hex digest of it, so the raw
    /// id never leaves the device. Optional in schema 1.
    public var user: String?
    /// The app.
    public var app: AppInfo
    /// The device.
    public var device: DeviceInfo
    /// What the app was doing.
    public var context: EventContext
    /// Free-form string tags, e.g. an experiment arm.
    public var tags: [String: String]
    /// Images loaded when the event's stacks were captured; present on events with stacks.
    public var images: [ImageInfo]?
    /// The type-specific body.
    public var payload: EventPayload

    /// The event's type, taken from its payload.
    public var type: EventType { payload.type }

    public init(id: UUID = UUID(), time: Date, session: UUID, app: AppInfo, device: DeviceInfo,
                context: EventContext = EventContext(), tags: [String: String] = [:], images: [ImageInfo]? = nil,
                install: UUID? = nil, user: String? = nil, payload: EventPayload) {
        self.schema = Event.currentSchema
        self.id = id
        self.time = time
        self.session = session
        self.app = app
        self.device = device
        self.context = context
        self.tags = tags
        self.images = images
        self.install = install
        self.user = user
        self.payload = payload
    }
}

extension Event: Codable {
    enum CodingKeys: String, CodingKey {
        case schema, id, type, time, session, install, user, app, device, context, tags, images, payload
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schema = try container.decode(Int.self, forKey: .schema)
        guard schema >= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .schema, in: container, debugDescription: "schema must be 1 or later, got \(schema)")
        }
        id = try Event.decodeUUID(container, forKey: .id)
        let typeName = try container.decode(String.self, forKey: .type)
        guard let type = EventType(rawValue: typeName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container,
                debugDescription: "unknown event type \"\(typeName.prefix(40))\"; expected one of "
                    + EventType.allCases.map(\.rawValue).joined(separator: ", "))
        }
        time = try container.decode(Date.self, forKey: .time)
        session = try Event.decodeUUID(container, forKey: .session)
        if container.contains(.install), try !container.decodeNil(forKey: .install) {
            install = try Event.decodeUUID(container, forKey: .install)
        } else {
            install = nil
        }
        user = try container.decodeIfPresent(String.self, forKey: .user)
        app = try container.decode(AppInfo.self, forKey: .app)
        device = try container.decode(DeviceInfo.self, forKey: .device)
        context = try container.decodeIfPresent(EventContext.self, forKey: .context) ?? EventContext()
        tags = try container.decodeIfPresent([String: String].self, forKey: .tags) ?? [:]
        images = try container.decodeIfPresent([ImageInfo].self, forKey: .images)
        switch type {
        case .hang: payload = .hang(try container.decode(HangPayload.self, forKey: .payload))
        case .frames: payload = .frames(try container.decode(FramesPayload.self, forKey: .payload))
        case .launch: payload = .launch(try container.decode(LaunchPayload.self, forKey: .payload))
        case .network: payload = .network(try container.decode(NetworkPayload.self, forKey: .payload))
        case .crash: payload = .crash(try container.decode(CrashPayload.self, forKey: .payload))
        case .resource: payload = .resource(try container.decode(ResourcePayload.self, forKey: .payload))
        case .span: payload = .span(try container.decode(SpanPayload.self, forKey: .payload))
        case .log: payload = .log(try container.decode(LogPayload.self, forKey: .payload))
        case .session: payload = .session(try container.decode(SessionPayload.self, forKey: .payload))
        }
    }

    /// A UUID in its 36-character text form only: Foundation's `UUID(uuidString:)` on Linux also
    /// takes `-0`, `+0`, `0x` or ` 0` for a pair of digits, which would give two different ids
    /// one value (and the server's tape decoder, rightly, refuses them).
    private static func decodeUUID(_ container: KeyedDecodingContainer<CodingKeys>, forKey key: CodingKeys) throws -> UUID {
        let text = try container.decode(String.self, forKey: key)
        var index = 0
        let wellFormed = text.utf8.count == 36 && text.utf8.allSatisfy { byte in
            defer { index += 1 }
            switch index {
            case 8, 13, 18, 23: return byte == UInt8(ascii: "-")
            default:
                return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
            }
        }
        guard wellFormed, let value = UUID(uuidString: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                   debugDescription: "Attempted to decode UUID from invalid UUID string.")
        }
        return value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schema, forKey: .schema)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(time, forKey: .time)
        try container.encode(session, forKey: .session)
        try container.encodeIfPresent(install, forKey: .install)
        try container.encodeIfPresent(user, forKey: .user)
        try container.encode(app, forKey: .app)
        try container.encode(device, forKey: .device)
        try container.encode(context, forKey: .context)
        if !tags.isEmpty { try container.encode(tags, forKey: .tags) }
        try container.encodeIfPresent(images, forKey: .images)
        switch payload {
        case .hang(let body): try container.encode(body, forKey: .payload)
        case .frames(let body): try container.encode(body, forKey: .payload)
        case .launch(let body): try container.encode(body, forKey: .payload)
        case .network(let body): try container.encode(body, forKey: .payload)
        case .crash(let body): try container.encode(body, forKey: .payload)
        case .resource(let body): try container.encode(body, forKey: .payload)
        case .span(let body): try container.encode(body, forKey: .payload)
        case .log(let body): try container.encode(body, forKey: .payload)
        case .session(let body): try container.encode(body, forKey: .payload)
        }
    }
}
