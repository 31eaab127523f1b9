/// The type-specific body of an ``Event``; its case decides the event's ``EventType``, so the
/// two can never disagree.
public enum EventPayload: Sendable, Hashable {
    case hang(HangPayload)
    case frames(FramesPayload)
    case launch(LaunchPayload)
    case network(NetworkPayload)
    case crash(CrashPayload)
    case resource(ResourcePayload)
    case span(SpanPayload)
    case log(LogPayload)
    case session(SessionPayload)

    /// The event type this payload belongs to.
    public var type: EventType {
        switch self {
        case .hang: return .hang
        case .frames: return .frames
        case .launch: return .launch
        case .network: return .network
        case .crash: return .crash
        case .resource: return .resource
        case .span: return .span
        case .log: return .log
        case .session: return .session
        }
    }
}
