import Foundation
import Synchronization
import VigilCore

/// Decides which alert rules fire. Two paths:
///
/// - inside the transactions that process events, ``fire(for:on:)`` turns the issue
///   transitions they decide (a new issue, a regression) into alerts that commit with them;
/// - every ``interval`` seconds ``evaluate()`` checks the threshold rules (an issue's events in
///   the last hour, a release's crash-free users and hang rate) and sweeps for new issues that
///   no transition reported (made before a rule's handler ran, or by a server without it).
///
/// Firing goes through ``ServerStore/fireAlert(_:on:)``, whose cooldown row the database
/// arbitrates, so several servers evaluating one PostgreSQL database fire once.
///
/// Threading: safe to share; ``start()`` runs one background thread until ``stop()``.
public final class AlertEvaluator: Sendable {
    private let store: ServerStore
    private let clock: any VigilClock
    private let interval: Double
    private let releaseDays: Int64
    private let releaseInterval: Double
    /// When release rules were last checked (monotonic), nil before the first check.
    private let lastReleaseCheck = Mutex<MonotonicInstant?>(nil)
    private let onFired: @Sendable () -> Void
    private let log: @Sendable (String) -> Void
    private let loop: BackgroundLoop

    /// An evaluator for `store` checking every `interval` seconds; `onFired` runs after an
    /// evaluation fired alerts (to wake the deliverer). Release rules look at the last
    /// `releaseDays` days and are checked at most every `releaseInterval` seconds: their figures
    /// merge distinct-user sketches (up to 16,384 rows per release and day), far more than the
    /// issue rules read, and release rates move slowly.
    public init(store: ServerStore, clock: any VigilClock = SystemClock(), interval: Double = 15, releaseDays: Int64 = 30,
                releaseInterval: Double = 300,
                onFired: @escaping @Sendable () -> Void = {}, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.clock = clock
        self.interval = max(0.05, interval)
        self.releaseDays = max(1, releaseDays)
        self.releaseInterval = max(0, releaseInterval)
        self.onFired = onFired
        self.log = log
        self.loop = BackgroundLoop(name: "vigil-alert-evaluator")
    }

    /// Starts the background evaluation.
    public func start() {
        loop.start(pollSeconds: interval) { [self] in
            do {
                if try evaluate() > 0 { onFired() }
            } catch {
                log("alert evaluation failed: \(error)")
            }
            return false
        }
    }

    /// Stops it and waits for the current evaluation.
    public func stop() { loop.stop() }

    /// Checks every enabled rule once; returns the alerts fired.
    @discardableResult
    public func evaluate() throws -> Int {
        let now = clock.wallNow()
        let rules = try store.enabledAlertRules(kinds: [.newIssue, .issueEvents, .crashFreeUsers, .hangRate])
        guard !rules.isEmpty else { return 0 }
        let names = Dictionary(uniqueKeysWithValues: try store.projects().map { ($0.id, $0.name) })
        var fired = 0
        var health: [Int64: [ReleaseHealth]] = [:]
        let releasesDue = releaseRulesDue()
        for (rule, baseline) in rules {
            let project = names[rule.projectID] ?? "project \(rule.projectID)"
            switch rule.kind {
            case .newIssue:
                fired += try sweepNewIssues(rule, baseline: baseline, project: project, now: now)
            case .issueEvents:
                fired += try checkIssueEvents(rule, project: project, now: now)
            case .crashFreeUsers, .hangRate:
                guard releasesDue else { continue }
                if health[rule.projectID] == nil {
                    let today = Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))
                    health[rule.projectID] = try store.releaseHealth(projectID: rule.projectID, sinceDay: today - releaseDays + 1)
                        .map(\.total)
                }
                fired += try checkReleases(rule, releases: health[rule.projectID] ?? [], project: project, now: now)
            case .regression:
                break
            }
        }
        return fired
    }

    /// Whether the release rules are due (and, if so, marks them checked now).
    private func releaseRulesDue() -> Bool {
        let now = clock.monotonicNow()
        return lastReleaseCheck.withLock { last in
            if let previous = last, Double(now.nanoseconds(since: previous)) / 1e9 < releaseInterval { return false }
            last = now
            return true
        }
    }

    /// Issues newer than the rule that no alert of it covers yet.
    private func sweepNewIssues(_ rule: AlertRule, baseline: Int64, project: String, now: Date) throws -> Int {
        let rows = try store.database.read { connection in
            try connection.query("""
                SELECT id, kind, title, fingerprint FROM issues
                WHERE project_id = ? AND id > ? AND NOT EXISTS (
                    SELECT 1 FROM alert_cooldowns c WHERE c.rule_id = ? AND c.subject = 'issue:' || CAST(issues.id AS TEXT))
                ORDER BY id LIMIT 200
                """, [.integer(rule.projectID), .integer(baseline), .integer(rule.id)])
        }
        var fired = 0
        for row in rows {
            let issue = Alert.IssueFacts(id: row.int64("id"), kind: row.string("kind") ?? "", title: row.string("title") ?? "",
                                         fingerprint: row.string("fingerprint") ?? "")
            if try store.fireAlert(Alert(rule: rule, projectName: project, subject: "issue:\(issue.id)", issue: issue, createdAt: now)) {
                fired += 1
            }
        }
        return fired
    }

    /// Issues whose events in the last hour exceed the threshold. Candidates come from the
    /// issues table (seen in the last hour, enough events in all); each is counted through the
    /// `(issue_id, occurred_at)` index, unless its cooldown has not passed.
    private func checkIssueEvents(_ rule: AlertRule, project: String, now: Date) throws -> Int {
        let threshold = rule.threshold ?? 0
        let since = ServerStore.millis(now) - 3_600_000
        let due = ServerStore.millis(now) - rule.cooldownSeconds * 1000
        let over = try store.database.read { connection -> [(Alert.IssueFacts, Int64)] in
            let candidates = try connection.query("""
                SELECT id, kind, title, fingerprint FROM issues i
                WHERE project_id = ? AND last_seen >= ? AND event_count > ? AND NOT EXISTS (
                    SELECT 1 FROM alert_cooldowns c WHERE c.rule_id = ? AND c.subject = 'issue:' || CAST(i.id AS TEXT) AND c.fired_at > ?)
                ORDER BY id LIMIT 1000
                """, [.integer(rule.projectID), .integer(since), .integer(Int64(min(threshold, 9e18).rounded(.down))), .integer(rule.id),
                      .integer(due)])
            var over: [(Alert.IssueFacts, Int64)] = []
            for row in candidates {
                let count = try connection.scalar("SELECT COUNT(*) FROM apm_event WHERE issue_id = ? AND occurred_at >= ?",
                                                  [.integer(row.int64("id")), .integer(since)]).int64 ?? 0
                guard Double(count) > threshold else { continue }
                over.append((Alert.IssueFacts(id: row.int64("id"), kind: row.string("kind") ?? "", title: row.string("title") ?? "",
                                              fingerprint: row.string("fingerprint") ?? "", eventsLastHour: count), count))
            }
            return over
        }
        var fired = 0
        for (issue, count) in over {
            let alert = Alert(rule: rule, projectName: project, subject: "issue:\(issue.id)", issue: issue, value: Double(count),
                              createdAt: now)
            if try store.fireAlert(alert) { fired += 1 }
        }
        return fired
    }

    /// Releases with enough sessions whose crash-free users are below, or hang rate above, the threshold.
    private func checkReleases(_ rule: AlertRule, releases: [ReleaseHealth], project: String, now: Date) throws -> Int {
        let threshold = rule.threshold ?? 0
        var fired = 0
        for release in releases where release.sessions >= (rule.minSessions ?? 1) {
            let value: Double?
            switch rule.kind {
            case .crashFreeUsers: value = release.crashFreeUsersPercent.flatMap { $0 < threshold ? $0 : nil }
            case .hangRate: value = release.hangRateSecondsPerHour.flatMap { $0 > threshold ? $0 : nil }
            default: value = nil
            }
            guard let value else { continue }
            let facts = Alert.ReleaseFacts(version: release.version, build: release.build, sessions: release.sessions,
                                           crashFreeUsersPercent: release.crashFreeUsersPercent,
                                           hangRateSecondsPerHour: release.hangRateSecondsPerHour)
            let alert = Alert(rule: rule, projectName: project, subject: "release:\(release.name)", release: facts, value: value,
                              createdAt: now)
            if try store.fireAlert(alert) { fired += 1 }
        }
        return fired
    }

    /// Turns a transaction's issue transitions into alerts of the projects' new-issue and
    /// regression rules, written on `connection` so they commit (or roll back) with the events.
    /// Cost: one rule lookup per transaction that has transitions, then one cooldown upsert and
    /// one outbox insert per alert.
    public static func fire(for transitions: [IssueTransition], on connection: any DatabaseConnection) throws {
        let relevant = transitions.filter { if case .reopenedAfterIgnore = $0.kind { return false } else { return true } }
        guard !relevant.isEmpty else { return }
        let projectIDs = Set(relevant.map(\.projectID)).sorted()
        let rules = try ServerStore.enabledAlertRules(kinds: [.newIssue, .regression], projectIDs: projectIDs, on: connection)
        guard !rules.isEmpty else { return }
        var names: [Int64: String] = [:]
        for row in try connection.query(
            "SELECT id, name FROM projects WHERE id IN (\(Array(repeating: "?", count: projectIDs.count).joined(separator: ", ")))",
            projectIDs.map { .integer($0) }) {
            names[row.int64("id")] = row.string("name")
        }
        for transition in relevant {
            for (rule, _) in rules where rule.projectID == transition.projectID {
                var issue = Alert.IssueFacts(id: transition.issueID, kind: transition.issueKind, title: transition.title,
                                             fingerprint: transition.fingerprint)
                switch (transition.kind, rule.kind) {
                case (.newIssue, .newIssue): break
                case (.regressed(let version), .regression): issue.regressedIn = version
                default: continue
                }
                let alert = Alert(rule: rule, projectName: names[rule.projectID] ?? "project \(rule.projectID)",
                                  subject: "issue:\(transition.issueID)", issue: issue, createdAt: transition.at)
                _ = try ServerStore.fireAlert(alert, on: connection)
            }
        }
    }
}
