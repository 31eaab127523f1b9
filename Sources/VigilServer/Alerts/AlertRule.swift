import Foundation

/// One alert rule of a project: what to watch, the threshold, where to deliver (a webhook URL)
/// and the secret its deliveries are signed with (``WebhookSignature``).
///
/// A rule fires at most once per subject (an issue, or a release) per ``cooldownSeconds``;
/// the database enforces it (``ServerStore/fireAlert(_:on:)``), whatever the number of servers.
public struct AlertRule: Sendable, Hashable, Codable {
    /// What a rule watches.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// An issue appeared (its first events were processed). Once per issue.
        case newIssue = "new_issue"
        /// A resolved issue got an event from a later version and reopened.
        case regression
        /// An issue's events in the last hour exceed ``AlertRule/threshold``.
        case issueEvents = "issue_events"
        /// A release's crash-free users fell below ``AlertRule/threshold`` percent, once it has
        /// ``AlertRule/minSessions`` sessions.
        case crashFreeUsers = "crash_free_users"
        /// A release's hang rate (seconds of hangs per foreground hour) exceeds ``AlertRule/threshold``.
        case hangRate = "hang_rate"

        /// Whether the rule needs a threshold.
        public var needsThreshold: Bool { self == .issueEvents || self == .crashFreeUsers || self == .hangRate }

        /// Whether the rule is about releases (subject `release:…`) rather than issues.
        public var isAboutReleases: Bool { self == .crashFreeUsers || self == .hangRate }

        /// A short human label.
        public var label: String {
            switch self {
            case .newIssue: return "New issue"
            case .regression: return "Regression"
            case .issueEvents: return "Issue events in the last hour above N"
            case .crashFreeUsers: return "Release crash-free users below X %"
            case .hangRate: return "Release hang rate above Y s/h"
            }
        }
    }

    /// Database id.
    public var id: Int64
    /// The owning project.
    public var projectID: Int64
    /// A name for people (shown in the alert's text).
    public var name: String
    /// What it watches.
    public var kind: Kind
    /// Events per hour (``Kind/issueEvents``), percent (``Kind/crashFreeUsers``) or seconds per
    /// hour (``Kind/hangRate``); nil for the other kinds.
    public var threshold: Double?
    /// Sessions a release needs before its rates count (release rules; nil: 1).
    public var minSessions: Int64?
    /// At most one alert per subject within this many seconds.
    public var cooldownSeconds: Int64
    /// Where deliveries go: an `http` or `https` URL.
    public var url: String
    /// The HMAC key of ``WebhookSignature``; shown to the admin, never to others.
    public var secret: String
    /// Whether it fires.
    public var enabled: Bool
    /// When it was made.
    public var createdAt: Date
}

/// What a new rule is made of, before it is checked and stored.
public struct AlertRuleDraft: Sendable, Hashable, Codable {
    /// See ``AlertRule/name``.
    public var name: String
    /// See ``AlertRule/kind``: the raw value (`new_issue`, `regression`, `issue_events`,
    /// `crash_free_users`, `hang_rate`).
    public var kind: String
    /// See ``AlertRule/url``.
    public var url: String
    /// See ``AlertRule/threshold``.
    public var threshold: Double?
    /// See ``AlertRule/minSessions``.
    public var minSessions: Int64?
    /// Cooldown in minutes (default 60).
    public var cooldownMinutes: Double?

    /// A draft; see the properties.
    public init(name: String, kind: String, url: String, threshold: Double? = nil, minSessions: Int64? = nil,
                cooldownMinutes: Double? = nil) {
        self.name = name
        self.kind = kind
        self.url = url
        self.threshold = threshold
        self.minSessions = minSessions
        self.cooldownMinutes = cooldownMinutes
    }

    /// The checked values: kind, trimmed name, URL, threshold, minimum sessions, cooldown seconds.
    public func validated() throws(AlertRuleError) -> (name: String, kind: AlertRule.Kind, url: String, threshold: Double?,
                                                       minSessions: Int64?, cooldownSeconds: Int64) {
        guard let kind = AlertRule.Kind(rawValue: kind) else {
            throw .invalid(field: "kind", reason: "expected one of \(AlertRule.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let name = self.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.utf8.count <= 200,
              name.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
            throw .invalid(field: "name", reason: "1 to 200 bytes, no control characters")
        }
        let url = self.url.trimmingCharacters(in: .whitespaces)
        guard url.utf8.count <= 2000, let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = parsed.host, !host.isEmpty else {
            throw .invalid(field: "url", reason: "an absolute http:// or https:// URL of at most 2000 bytes")
        }
        var threshold: Double?
        if kind.needsThreshold {
            guard let value = self.threshold, value.isFinite, value >= 0 else {
                throw .invalid(field: "threshold", reason: "a number ≥ 0 is needed for \(kind.rawValue)")
            }
            if kind == .crashFreeUsers, value > 100 { throw .invalid(field: "threshold", reason: "a percentage, 0…100") }
            threshold = value
        }
        var minSessions: Int64?
        if kind.isAboutReleases {
            let value = self.minSessions ?? 1
            guard value >= 1, value <= 1_000_000_000 else { throw .invalid(field: "minSessions", reason: "1…1000000000") }
            minSessions = value
        }
        let minutes = cooldownMinutes ?? 60
        guard minutes.isFinite, minutes >= 0, minutes <= 525_600 else {
            throw .invalid(field: "cooldownMinutes", reason: "0…525600 (a year)")
        }
        return (name, kind, url, threshold, minSessions, Int64((minutes * 60).rounded()))
    }
}

/// Why a rule was refused.
public enum AlertRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A field is missing or out of range; `reason` says what is expected.
    case invalid(field: String, reason: String)
    /// No such rule in the project.
    case unknown(Int64)

    /// The field and what it expects, or the unknown id, for an answer's `reason`.
    public var description: String {
        switch self {
        case .invalid(let field, let reason): return "\(field): \(reason)"
        case .unknown(let id): return "no alert rule \(id) in this project"
        }
    }
}
