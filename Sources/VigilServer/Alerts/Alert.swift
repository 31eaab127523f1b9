import Foundation
import VigilCore

/// One alert: a rule fired about a subject (an issue or a release). Rendered once, when it
/// fires, into the JSON body every delivery attempt sends unchanged (documented in
/// `docs/api.md`, "Alert webhooks"), so receivers can de-duplicate by ``id``.
public struct Alert: Sendable, Hashable {
    /// The issue an alert is about.
    public struct IssueFacts: Sendable, Hashable {
        /// Database id.
        public var id: Int64
        /// `crash` or `hang`.
        public var kind: String
        /// One line naming the failure.
        public var title: String
        /// The grouping key.
        public var fingerprint: String
        /// The version it regressed in (regression alerts).
        public var regressedIn: String?
        /// Its events in the last hour (issue-events alerts).
        public var eventsLastHour: Int64?
    }

    /// The release an alert is about.
    public struct ReleaseFacts: Sendable, Hashable {
        /// Marketing version.
        public var version: String
        /// Build.
        public var build: String
        /// Sessions counted.
        public var sessions: Int64
        /// Crash-free users, percent.
        public var crashFreeUsersPercent: Double?
        /// Seconds of hangs per foreground hour.
        public var hangRateSecondsPerHour: Double?
    }

    /// A unique id (a lowercase UUID); the `Vigil-Alert-Id` header repeats it.
    public var id: String
    /// The rule that fired.
    public var rule: AlertRule
    /// The project's name.
    public var projectName: String
    /// `issue:ID` or `release:VERSION (BUILD)`: what the cooldown is counted per.
    public var subject: String
    /// The issue, for issue rules.
    public var issue: IssueFacts?
    /// The release, for release rules.
    public var release: ReleaseFacts?
    /// The measured value that crossed the threshold (threshold rules).
    public var value: Double?
    /// When it fired.
    public var createdAt: Date

    /// An alert with a fresh id.
    public init(rule: AlertRule, projectName: String, subject: String, issue: IssueFacts? = nil, release: ReleaseFacts? = nil,
                value: Double? = nil, createdAt: Date) {
        self.id = UUID().uuidString.lowercased()
        self.rule = rule
        self.projectName = projectName
        self.subject = subject
        self.issue = issue
        self.release = release
        self.value = value
        self.createdAt = createdAt
    }

    /// One line for people: what happened, where, and the numbers (Slack's `text`).
    public var text: String {
        let prefix = "[\(projectName)] \(rule.name): "
        switch rule.kind {
        case .newIssue:
            return prefix + "new \(issue?.kind ?? "issue") issue #\(issue?.id ?? 0): \(issue?.title ?? "")"
        case .regression:
            return prefix + "issue #\(issue?.id ?? 0) regressed in \(issue?.regressedIn ?? "a later version"): \(issue?.title ?? "")"
        case .issueEvents:
            return prefix + "issue #\(issue?.id ?? 0) had \(Self.number(value)) events in the last hour "
                + "(threshold \(Self.number(rule.threshold))): \(issue?.title ?? "")"
        case .crashFreeUsers:
            return prefix + "release \(release.map { "\($0.version) (\($0.build))" } ?? "") is at "
                + String(format: "%.2f", value ?? 0) + " % crash-free users (threshold \(Self.number(rule.threshold)) %, "
                + "\(release?.sessions ?? 0) sessions)"
        case .hangRate:
            return prefix + "release \(release.map { "\($0.version) (\($0.build))" } ?? "") hangs "
                + String(format: "%.2f", value ?? 0) + " s per foreground hour (threshold \(Self.number(rule.threshold)) s/h, "
                + "\(release?.sessions ?? 0) sessions)"
        }
    }

    /// The JSON body, keys in a fixed order.
    public func body() -> Data {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id"); writer.string(id)
        writer.key("schema"); writer.number(1)
        writer.key("type"); writer.string(rule.kind.rawValue)
        writer.key("text"); writer.string(text)
        writer.key("project"); writer.string(projectName)
        writer.key("rule")
        writer.beginObject()
        writer.key("id"); writer.number(rule.id)
        writer.key("name"); writer.string(rule.name)
        if let threshold = rule.threshold { writer.key("threshold"); writer.number(threshold) }
        if let minSessions = rule.minSessions { writer.key("minSessions"); writer.number(minSessions) }
        writer.key("cooldownSeconds"); writer.number(rule.cooldownSeconds)
        writer.endObject()
        writer.key("subject"); writer.string(subject)
        writer.key("createdAt"); writer.string(Timestamp.format(createdAt))
        if let value { writer.key("value"); writer.number(value) }
        if let issue {
            writer.key("issue")
            writer.beginObject()
            writer.key("id"); writer.number(issue.id)
            writer.key("kind"); writer.string(issue.kind)
            writer.key("title"); writer.string(issue.title)
            writer.key("fingerprint"); writer.string(issue.fingerprint)
            writer.key("path"); writer.string("/issues/\(issue.id)")
            if let version = issue.regressedIn { writer.key("regressedIn"); writer.string(version) }
            if let events = issue.eventsLastHour { writer.key("eventsLastHour"); writer.number(events) }
            writer.endObject()
        }
        if let release {
            writer.key("release")
            writer.beginObject()
            writer.key("version"); writer.string(release.version)
            writer.key("build"); writer.string(release.build)
            writer.key("sessions"); writer.number(release.sessions)
            if let rate = release.crashFreeUsersPercent { writer.key("crashFreeUsersPercent"); writer.number(rate) }
            if let rate = release.hangRateSecondsPerHour { writer.key("hangRateSecondsPerHour"); writer.number(rate) }
            writer.endObject()
        }
        writer.endObject()
        return writer.data
    }

    private static func number(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.2f", value)
    }
}
