import Foundation

/// Where an issue stands in the team's workflow: open, resolved (plainly, in the next release or
/// in a version), ignored (forever, until N more events or until a date) or regressed.
///
/// The rules, applied by ``afterEvents(eventCount:versions:now:)`` inside the transaction that
/// attaches events to the issue:
/// - resolved in version V (or in the next release: V is then the highest app version the
///   project had sent when it was resolved): an event from a version later than V reopens it as
///   regressed in that version; events from V or earlier keep arriving and leave it resolved.
/// - resolved plainly: an event that happened (its own time) after the resolution reopens it as
///   regressed; late uploads of older events do not.
/// - ignored until N more events: reopens with the event that makes the Nth since ignoring.
/// - ignored until a date: listed as open once the date has passed; the first event after it
///   records the reopening.
/// - ignored forever: stays ignored.
///
/// Versions compare as ``ServerStore/versionPrecedes(_:_:)`` orders them everywhere else:
/// runs of digits as numbers, the rest as text (`1.10` after `1.9`, `2.0` after `1.99`).
public struct IssueState: Sendable, Hashable, Codable {
    /// The stored status.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        /// Unresolved.
        case open
        /// Resolved (see ``Resolution``).
        case resolved
        /// Ignored (forever or until ``IssueState/ignoreUntilEvents`` / ``IssueState/ignoreUntil``).
        case ignored
        /// Was resolved, and an event it was resolved against came: unresolved again.
        case regressed
    }

    /// How a resolved issue was resolved.
    public enum Resolution: String, Sendable, Hashable, Codable {
        /// No version: any event that happens after the resolution regresses it.
        case plain
        /// In the release after the highest version seen at resolution (``IssueState/resolvedIn``).
        case nextRelease = "next_release"
        /// In a named version (``IssueState/resolvedIn``).
        case version
    }

    /// The stored status.
    public var status: Status = .open
    /// How it was resolved, when resolved.
    public var resolution: Resolution?
    /// The version events must be later than to regress it (next release or named version).
    public var resolvedIn: String?
    /// When it was resolved.
    public var resolvedAt: Date?
    /// The issue's total event count at which an ignored issue reopens.
    public var ignoreUntilEvents: Int64?
    /// The date after which an ignored issue counts as open.
    public var ignoreUntil: Date?
    /// The version of the event that regressed it, when it regressed.
    public var regressedVersion: String?
    /// When it regressed.
    public var regressedAt: Date?

    /// Open, nothing recorded.
    public init() {}

    /// The status as the lists show it at `now`: an ignored issue whose date has passed is open.
    public func effectiveStatus(at now: Date) -> Status {
        if status == .ignored, let until = ignoreUntil, until <= now { return .open }
        return status
    }

    /// Whether the issue is unresolved at `now` (open or regressed).
    public func isUnresolved(at now: Date) -> Bool {
        let status = effectiveStatus(at: now)
        return status == .open || status == .regressed
    }

    /// The state after new events were attached, and what happened, or nil when nothing changes.
    ///
    /// `eventCount`: the issue's total events including the new ones; `versions`: the new
    /// events per app version with the time (ms since 1970) of the latest; `now`: server time.
    /// Pure: the caller decides it inside the transaction holding the issue's row.
    public func afterEvents(eventCount: Int64, versions: [String: Int64], now: Date) -> (IssueState, IssueTransition.Kind)? {
        switch status {
        case .open, .regressed:
            return nil
        case .resolved:
            let regressing: [String]
            if let resolvedIn, resolution != .plain {
                regressing = versions.keys.filter { ServerStore.versionPrecedes(resolvedIn, $0) }
            } else {
                let since = resolvedAt.map(ServerStore.millis) ?? Int64.min
                regressing = versions.filter { $0.value > since }.map(\.key)
            }
            // The highest of them names the regression (deterministic whatever the batch's order).
            guard let version = regressing.sorted().max(by: ServerStore.versionPrecedes) else { return nil }
            var next = IssueState()
            next.status = .regressed
            next.regressedVersion = version
            next.regressedAt = now
            return (next, .regressed(version: version))
        case .ignored:
            if let limit = ignoreUntilEvents, eventCount >= limit { return (IssueState(), .reopenedAfterIgnore) }
            if let until = ignoreUntil, until <= now { return (IssueState(), .reopenedAfterIgnore) }
            return nil
        }
    }

    /// One line for people: `resolved in 1.0`, `ignored until 10 more events`…
    /// (`currentEvents`: the issue's event count now, for the events left).
    public func summary(currentEvents: Int64, now: Date) -> String {
        switch effectiveStatus(at: now) {
        case .open: return "open"
        case .regressed: return "regressed" + (regressedVersion.map { " in \($0)" } ?? "")
        case .resolved:
            switch resolution {
            case .nextRelease: return "resolved in the next release" + (resolvedIn.map { " (after \($0))" } ?? "")
            case .version: return "resolved in " + (resolvedIn ?? "a version")
            case .plain, nil: return "resolved"
            }
        case .ignored:
            if let limit = ignoreUntilEvents { return "ignored until \(max(0, limit - currentEvents)) more events" }
            if let until = ignoreUntil { return "ignored until " + ISO8601DateFormatter().string(from: until) }
            return "ignored"
        }
    }
}
