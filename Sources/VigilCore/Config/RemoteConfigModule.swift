/// A part of the SDK that the remote configuration can switch off on its own.
///
/// The raw values are the keys of the document's `modules` object.
public enum RemoteConfigModule: String, Codable, Sendable, CaseIterable {
    case hangs, frames, launch, network, crashes, resources, ble

    /// The module whose detector produces events of `type`; `nil` for span, log and session
    /// events, which many parts of the app produce (or the SDK itself, once per run) and only
    /// sampling and the kill switch govern.
    public init?(producing type: EventType) {
        switch type {
        case .hang: self = .hangs
        case .frames: self = .frames
        case .launch: self = .launch
        case .network: self = .network
        case .crash: self = .crashes
        case .resource: self = .resources
        case .span, .log, .session: return nil
        }
    }
}
