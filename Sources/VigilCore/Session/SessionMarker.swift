import Foundation

/// What a running session keeps on disk so that the next launch can tell how it ended: who ran
/// (the release, the install, the device's OS), since when, how long in the foreground, the app
/// state when last seen, and whether it ended cleanly.
///
/// Rewritten (atomically) at start, at every app-state change and every few seconds while the
/// session runs; a marker still present at the next launch belongs to a session that did not
/// stop cleanly, and ``SessionOutcomeDecider`` turns it into the session's `session` event.
public struct SessionMarker: Codable, Sendable, Hashable {
    /// The layout of this record.
    public var version: Int = 1
    /// The session's id (the `session` of its events).
    public var session: UUID
    /// The install id its events carried.
    public var install: UUID?
    /// The (hashed) user id its events carried.
    public var user: String?
    /// The release that ran.
    public var app: AppInfo
    /// The device, with the OS version that ran.
    public var device: DeviceInfo
    /// The tags its events carried.
    public var tags: [String: String]
    /// When the session started (wall clock).
    public var start: Date
    /// The last moment the session was known alive: `start` plus ``durationMs``.
    public var lastSeen: Date
    /// Monotonic time from start to ``lastSeen``, in milliseconds.
    public var durationMs: Double
    /// Foreground time from start to ``lastSeen``, in milliseconds.
    public var foregroundMs: Double
    /// The app state at ``lastSeen`` (an ``AppState`` raw value).
    public var appState: String
    /// Set when the session stopped cleanly.
    public var endedCleanly: Bool

    /// A marker with the given fields.
    public init(session: UUID, install: UUID?, user: String?, app: AppInfo, device: DeviceInfo, tags: [String: String],
                start: Date, lastSeen: Date, durationMs: Double, foregroundMs: Double, appState: String,
                endedCleanly: Bool) {
        self.session = session
        self.install = install
        self.user = user
        self.app = app
        self.device = device
        self.tags = tags
        self.start = start
        self.lastSeen = lastSeen
        self.durationMs = durationMs
        self.foregroundMs = foregroundMs
        self.appState = appState
        self.endedCleanly = endedCleanly
    }

    /// The `session` event for this marker with the given payload: the session's own release,
    /// device, install and user (not the launch that decided it), and the session id as the
    /// event id, so that a session reported twice (a clean stop whose marker outlived the
    /// process) is stored once.
    public func event(_ payload: SessionPayload) -> Event {
        Event(id: session, time: start, session: session, app: app, device: device,
              context: EventContext(appState: appState), tags: tags, install: install, user: user,
              payload: .session(payload))
    }
}
