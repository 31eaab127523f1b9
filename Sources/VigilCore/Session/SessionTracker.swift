import Foundation

/// Follows one app session from start: how long it has run and how much of that was in the
/// foreground, from the app-state changes it is told about. Produces the ``SessionMarker`` to
/// persist and, at a clean stop, the session's `exited` payload.
///
/// Pure: instants come from the caller's injected clock; the wall start is fixed at creation
/// and later wall times are derived from monotonic durations (a wall-clock jump does not bend
/// the session). Foreground time counts the `foreground` and `inactive` states (the app is on
/// screen); `background` and `suspended` do not. Not thread-safe; the SDK keeps it on its
/// monitoring queue.
public struct SessionTracker: Sendable {
    /// The marker fields that do not change while the session runs.
    public private(set) var marker: SessionMarker
    private let started: MonotonicInstant
    private var state: AppState
    private var stateSince: MonotonicInstant
    private var foregroundBeforeMs: Double = 0
    private var lastInstant: MonotonicInstant

    /// Starts tracking at `instant` (wall time `wallStart`) in `state`.
    public init(session: UUID, install: UUID?, user: String?, app: AppInfo, device: DeviceInfo,
                tags: [String: String], at instant: MonotonicInstant, wallStart: Date, state: AppState = .foreground) {
        marker = SessionMarker(session: session, install: install, user: user, app: app, device: device, tags: tags,
                               start: wallStart, lastSeen: wallStart, durationMs: 0, foregroundMs: 0,
                               appState: state.rawValue, endedCleanly: false)
        started = instant
        self.state = state
        stateSince = instant
        lastInstant = instant
    }

    /// Whether `state` counts as time in the foreground.
    public static func isForeground(_ state: AppState) -> Bool { state == .foreground || state == .inactive }

    /// The app state changed at `instant`. An instant earlier than one already seen is taken
    /// as that one (inputs arrive through queues and may be stamped out of order by a hair).
    public mutating func appStateChanged(_ newState: AppState, at instant: MonotonicInstant) {
        let at = max(instant, lastInstant)
        if Self.isForeground(state) { foregroundBeforeMs += at.milliseconds(since: stateSince) }
        state = newState
        stateSince = at
        lastInstant = at
    }

    /// Changes the install id on what follows (the app reset it).
    public mutating func setInstall(_ install: UUID) { marker.install = install }

    /// The marker as of `instant`: alive until then, in its current state.
    public mutating func update(at instant: MonotonicInstant) -> SessionMarker {
        let at = max(instant, lastInstant)
        lastInstant = at
        marker.durationMs = at.milliseconds(since: started)
        marker.lastSeen = marker.start.addingTimeInterval(marker.durationMs / 1000)
        marker.foregroundMs = foregroundBeforeMs + (Self.isForeground(state) ? at.milliseconds(since: stateSince) : 0)
        marker.appState = state.rawValue
        return marker
    }

    /// The session stopped cleanly at `instant`: the final marker (flagged) and the `exited`
    /// payload to report.
    public mutating func endCleanly(at instant: MonotonicInstant) -> (marker: SessionMarker, payload: SessionPayload) {
        var final = update(at: instant)
        final.endedCleanly = true
        marker = final
        return (final, SessionOutcomeDecider.decide(final, evidence: SessionEvidence(currentApp: final.app,
                                                                                   currentOSVersion: final.device.osVersion),
                                                    decidedAt: final.lastSeen))
    }
}
