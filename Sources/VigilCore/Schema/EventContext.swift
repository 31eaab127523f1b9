/// What the app was doing when an event happened: the visible page, the app state and the
/// network type. Every field is optional because not every producer knows all three.
public struct EventContext: Codable, Sendable, Hashable {
    /// The visible screen, e.g. `CheckoutViewController`.
    public var page: String?
    /// `foreground`, `background`, `inactive` or `suspended` (see ``AppState``); free text on
    /// the wire so that a newer SDK's states are not rejected.
    public var appState: String?
    /// `wifi`, `cellular`, `wired`, `none` or `unknown`.
    public var network: String?

    public init(page: String? = nil, appState: String? = nil, network: String? = nil) {
        self.page = page
        self.appState = appState
        self.network = network
    }
}

/// The app states the SDK reports in ``EventContext/appState``.
public enum AppState: String, Codable, Sendable, CaseIterable {
    case foreground, background, inactive, suspended
}
