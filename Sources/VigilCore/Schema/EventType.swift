/// The kind of an event; it selects the shape of the event's `payload`.
public enum EventType: String, Codable, Sendable, CaseIterable {
    case hang, frames, launch, network, crash, resource, span, log, session
}
