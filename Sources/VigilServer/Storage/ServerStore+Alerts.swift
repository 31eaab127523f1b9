import Foundation

/// An alert as the outbox keeps it, for the API and the dashboard.
public struct AlertRecord: Sendable, Hashable, Codable {
    /// The alert's id.
    public var id: String
    /// The rule that fired.
    public var ruleID: Int64
    /// `issue:ID` or `release:VERSION (BUILD)`.
    public var subject: String
    /// The alert's one-line text.
    public var text: String
    /// When it fired.
    public var createdAt: Date
    /// `pending` (waiting for a (next) attempt), `delivered`, `failed` (gave up after the last
    /// attempt) or `dropped` (its rule was deleted first).
    public var state: String
    /// Attempts made so far.
    public var attempts: Int
    /// When the next attempt is due (pending alerts).
    public var nextAttemptAt: Date?
    /// When a receiver accepted it.
    public var deliveredAt: Date?
    /// The last failure.
    public var lastError: String?
}

/// One delivery attempt, for the delivery log.
public struct AlertDeliveryRecord: Sendable, Hashable, Codable {
    /// The alert delivered.
    public var alertID: String
    /// Its rule.
    public var ruleID: Int64
    /// 1 for the first attempt.
    public var attempt: Int
    /// When it was sent.
    public var attemptedAt: Date
    /// The receiver's HTTP status; nil when no answer came.
    public var status: Int?
    /// Why it failed (a non-2xx status, a timeout, a refused connection).
    public var error: String?
    /// Time to the answer, milliseconds.
    public var durationMs: Double
}

/// A due alert claimed by a deliverer, with what sending it needs.
struct ClaimedAlert: Sendable {
    var id: String
    var projectID: Int64
    var ruleID: Int64
    /// The attempt this claim makes (1-based).
    var attempt: Int
    var body: Data
    /// Nil when the rule was deleted.
    var url: String?
    var secret: String?
}

extension ServerStore {
    static let outboxStates = ["pending", "delivered", "failed", "dropped"]

    // MARK: Rules

    /// Stores a new rule with a fresh signing secret. A new-issue rule fires only for issues
    /// that appear after it is made.
    public func createAlertRule(projectID: Int64, _ draft: AlertRuleDraft, now: Date) throws -> AlertRule {
        let valid = try draft.validated()
        let secret = SecretToken.generate(prefix: "whsec_")
        let created = ServerStore.millis(now)
        let id = try database.write { connection in
            let baseline = try connection.scalar("SELECT MAX(id) FROM issues WHERE project_id = ?", [.integer(projectID)]).int64 ?? 0
            return try connection.scalar("""
                INSERT INTO alert_rules (project_id, name, kind, threshold, min_sessions, cooldown_seconds, window_seconds, url, secret,
                    enabled, created_at, baseline_issue_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING id
                """, [.integer(projectID), .text(valid.name), .text(valid.kind.rawValue), .optional(valid.threshold),
                      .optional(valid.minSessions), .integer(valid.cooldownSeconds), .optional(valid.windowSeconds), .text(valid.url),
                      .text(secret), .integer(created), .integer(baseline)]).int64 ?? 0
        }
        return AlertRule(id: id, projectID: projectID, name: valid.name, kind: valid.kind, threshold: valid.threshold,
                         minSessions: valid.minSessions, cooldownSeconds: valid.cooldownSeconds, windowSeconds: valid.windowSeconds,
                         url: valid.url, secret: secret, enabled: true, createdAt: ServerStore.date(created))
    }

    /// Rule `id` of the project and its whole row, read for a change within `connection`'s
    /// transaction (locked on PostgreSQL, so two servers' changes apply one after the other).
    /// Throws ``AlertRuleError/unknown(_:)``.
    private static func lockedRule(projectID: Int64, id: Int64,
                                   on connection: any DatabaseConnection) throws -> (rule: AlertRule, row: SQLRow) {
        let lock = connection.dialect == .postgres ? " FOR UPDATE" : ""
        guard let row = try connection.first("SELECT * FROM alert_rules WHERE project_id = ? AND id = ?\(lock)",
                                             [.integer(projectID), .integer(id)]),
              let rule = Self.rule(row) else {
            throw AlertRuleError.unknown(id)
        }
        return (rule, row)
    }

    /// Changes a rule's name, webhook, threshold, minimum sessions, cooldown or window (the
    /// fields `change` gives), checked as a whole like a new rule; returns the rule as stored.
    /// Takes effect at the next evaluation or transition; alerts already fired keep the body
    /// they were rendered with, and those not yet delivered go to the new URL. Throws
    /// ``AlertRuleError``.
    public func updateAlertRule(projectID: Int64, id: Int64, _ change: AlertRuleChange) throws -> AlertRule {
        try database.write { connection in
            var rule = try Self.lockedRule(projectID: projectID, id: id, on: connection).rule
            let valid = try change.applied(to: rule).validated()
            try connection.execute("""
                UPDATE alert_rules SET name = ?, url = ?, threshold = ?, min_sessions = ?, cooldown_seconds = ?, window_seconds = ?
                WHERE id = ?
                """, [.text(valid.name), .text(valid.url), .optional(valid.threshold), .optional(valid.minSessions),
                      .integer(valid.cooldownSeconds), .optional(valid.windowSeconds), .integer(id)])
            rule.name = valid.name
            rule.url = valid.url
            rule.threshold = valid.threshold
            rule.minSessions = valid.minSessions
            rule.cooldownSeconds = valid.cooldownSeconds
            rule.windowSeconds = valid.windowSeconds
            return rule
        }
    }

    /// Pauses a rule (it fires nothing until resumed) or resumes it; returns the rule as stored.
    /// Pausing a paused rule, or resuming a running one, changes nothing.
    ///
    /// Resuming does not fire for what happened while the rule was paused: its
    /// ``AlertRule/resumedAt`` becomes `now` (an `issue_events` rule then counts only events
    /// that happened after it) and its new-issue baseline the project's newest issue (issues
    /// that appeared meanwhile are not reported); regressions and comebacks are decided when
    /// they happen, and a paused rule is not asked then. Release rules judge a level (a
    /// release's rates over 30 days), so a release still past the threshold after the resume
    /// fires, as it would for a rule made then. Alerts fired before the pause keep being
    /// delivered. Throws ``AlertRuleError/unknown(_:)``.
    public func setAlertRulePaused(projectID: Int64, id: Int64, paused: Bool, now: Date) throws -> AlertRule {
        try database.write { connection in
            var (rule, row) = try Self.lockedRule(projectID: projectID, id: id, on: connection)
            if paused, rule.enabled {
                try connection.execute("UPDATE alert_rules SET enabled = 0 WHERE id = ?", [.integer(id)])
                rule.enabled = false
            } else if !paused, !rule.enabled {
                let at = ServerStore.millis(now)
                let baseline = try connection.scalar("SELECT MAX(id) FROM issues WHERE project_id = ?", [.integer(projectID)]).int64 ?? 0
                try connection.execute("UPDATE alert_rules SET enabled = 1, resumed_at = ?, baseline_issue_id = ? WHERE id = ?",
                                       [.integer(at), .integer(max(baseline, row.int64("baseline_issue_id"))), .integer(id)])
                rule.enabled = true
                rule.resumedAt = ServerStore.date(at)
            }
            return rule
        }
    }

    /// The project's rules, oldest first.
    public func alertRules(projectID: Int64) throws -> [AlertRule] {
        try database.read { connection in
            try connection.query("SELECT * FROM alert_rules WHERE project_id = ? ORDER BY id", [.integer(projectID)]).compactMap(Self.rule)
        }
    }

    /// Every enabled rule of `kinds`, all projects, with each rule's new-issue baseline.
    func enabledAlertRules(kinds: [AlertRule.Kind]) throws -> [(rule: AlertRule, baselineIssueID: Int64)] {
        try database.read { connection in
            try Self.enabledAlertRules(kinds: kinds, projectIDs: nil, on: connection)
        }
    }

    static func enabledAlertRules(kinds: [AlertRule.Kind], projectIDs: [Int64]?,
                                  on connection: any DatabaseConnection) throws -> [(rule: AlertRule, baselineIssueID: Int64)] {
        var sql = "SELECT * FROM alert_rules WHERE enabled = 1 AND kind IN (\(Array(repeating: "?", count: kinds.count).joined(separator: ", ")))"
        var arguments: [SQLValue] = kinds.map { .text($0.rawValue) }
        if let projectIDs {
            sql += " AND project_id IN (\(Array(repeating: "?", count: projectIDs.count).joined(separator: ", ")))"
            arguments += projectIDs.map { .integer($0) }
        }
        return try connection.query(sql + " ORDER BY id", arguments).compactMap { row in
            rule(row).map { ($0, row.int64("baseline_issue_id")) }
        }
    }

    /// Deletes a rule; its alerts not yet delivered are dropped. Throws ``AlertRuleError/unknown(_:)``.
    public func deleteAlertRule(projectID: Int64, id: Int64) throws {
        try database.write { connection in
            guard try connection.execute("DELETE FROM alert_rules WHERE project_id = ? AND id = ?", [.integer(projectID), .integer(id)]) == 1 else {
                throw AlertRuleError.unknown(id)
            }
            try connection.execute("UPDATE alert_outbox SET state = 3 WHERE rule_id = ? AND state = 0", [.integer(id)])
            try connection.execute("DELETE FROM alert_cooldowns WHERE rule_id = ?", [.integer(id)])
        }
    }

    private static func rule(_ row: SQLRow) -> AlertRule? {
        guard let kind = row.string("kind").flatMap(AlertRule.Kind.init(rawValue:)) else { return nil }
        return AlertRule(id: row.int64("id"), projectID: row.int64("project_id"), name: row.string("name") ?? "", kind: kind,
                         threshold: row["threshold"].double, minSessions: row["min_sessions"].int64,
                         cooldownSeconds: row.int64("cooldown_seconds"),
                         windowSeconds: kind == .issueEvents ? (row["window_seconds"].int64 ?? 3600) : nil,
                         url: row.string("url") ?? "", secret: row.string("secret") ?? "", enabled: row.int("enabled") != 0,
                         createdAt: ServerStore.date(row.int64("created_at")), resumedAt: row["resumed_at"].int64.map(ServerStore.date))
    }

    // MARK: Firing

    /// Fires `alert` unless its rule fired about the same subject within the cooldown: claims
    /// the cooldown row (an upsert that changes it only when the window has passed; a new-issue
    /// rule fires once per issue ever) and, when claimed, adds the alert to the outbox, due now.
    /// Returns whether it fired.
    ///
    /// On PostgreSQL a second transaction upserting the same row waits for the first and then
    /// sees its time, so two servers never both fire; call it inside the transaction whose
    /// outcome the alert reports.
    static func fireAlert(_ alert: Alert, on connection: any DatabaseConnection) throws -> Bool {
        let now = ServerStore.millis(alert.createdAt)
        let claimed: [SQLRow]
        if alert.rule.kind == .newIssue {
            claimed = try connection.query("""
                INSERT INTO alert_cooldowns (rule_id, subject, fired_at) VALUES (?, ?, ?)
                ON CONFLICT (rule_id, subject) DO NOTHING RETURNING rule_id
                """, [.integer(alert.rule.id), .text(alert.subject), .integer(now)])
        } else {
            claimed = try connection.query("""
                INSERT INTO alert_cooldowns (rule_id, subject, fired_at) VALUES (?, ?, ?)
                ON CONFLICT (rule_id, subject) DO UPDATE SET fired_at = excluded.fired_at
                WHERE alert_cooldowns.fired_at <= ?
                RETURNING rule_id
                """, [.integer(alert.rule.id), .text(alert.subject), .integer(now),
                      .integer(now - alert.rule.cooldownSeconds * 1000)])
        }
        guard !claimed.isEmpty else { return false }
        try connection.execute("""
            INSERT INTO alert_outbox (id, rule_id, project_id, subject, summary, body, created_at, state, attempts, next_attempt_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, ?)
            """, [.text(alert.id), .integer(alert.rule.id), .integer(alert.rule.projectID), .text(alert.subject),
                  .text(alert.text), .text(String(decoding: alert.body(), as: UTF8.self)), .integer(now), .integer(now)])
        return true
    }

    /// ``fireAlert(_:on:)`` in a transaction of its own.
    func fireAlert(_ alert: Alert) throws -> Bool {
        try database.write { try Self.fireAlert(alert, on: $0) }
    }

    // MARK: Delivery

    /// Claims up to `limit` alerts due at `now`: each gets its attempt counted and its next
    /// attempt moved to `leaseUntil`, so no other deliverer (or server) takes it meanwhile, and
    /// a deliverer that dies mid-attempt leaves it to be taken again when the lease ends.
    ///
    /// A read through the outbox's partial index comes first, so an idle server polling the
    /// outbox takes no write lock (SQLite has one for the whole file).
    func claimDueAlerts(now: Date, leaseUntil: Date, limit: Int) throws -> [ClaimedAlert] {
        let due = try database.read { connection in
            try connection.first("SELECT 1 FROM alert_outbox WHERE state = 0 AND next_attempt_at <= ? LIMIT 1",
                                 [.integer(ServerStore.millis(now))]) != nil
        }
        guard due else { return [] }
        return try database.write { connection in
            let rows = try connection.query("""
                SELECT id, project_id, rule_id, attempts, body FROM alert_outbox
                WHERE state = 0 AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?\(connection.dialect.claimRows)
                """, [.integer(ServerStore.millis(now)), .int(limit)])
            guard !rows.isEmpty else { return [] }
            let ids = rows.map { SQLValue.text($0.string("id") ?? "") }
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            try connection.execute("UPDATE alert_outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE id IN (\(marks))",
                                   [.integer(ServerStore.millis(leaseUntil))] + ids)
            let ruleIDs = Set(rows.map { $0.int64("rule_id") }).sorted()
            var rules: [Int64: (String, String)] = [:]
            for row in try connection.query(
                "SELECT id, url, secret FROM alert_rules WHERE id IN (\(Array(repeating: "?", count: ruleIDs.count).joined(separator: ", ")))",
                ruleIDs.map { .integer($0) }) {
                rules[row.int64("id")] = (row.string("url") ?? "", row.string("secret") ?? "")
            }
            return rows.map { row in
                let rule = rules[row.int64("rule_id")]
                return ClaimedAlert(id: row.string("id") ?? "", projectID: row.int64("project_id"), ruleID: row.int64("rule_id"),
                                    attempt: row.int("attempts") + 1, body: Data((row.string("body") ?? "").utf8),
                                    url: rule?.0, secret: rule?.1)
            }
        }
    }

    /// Records an attempt's outcome: delivered, or failed with the next attempt at `retryAt`
    /// (nil: give up), or dropped (the rule is gone); and logs the attempt. Changes the alert
    /// only while the claim is still this attempt's (a lease that ran out and was claimed
    /// again belongs to the newer attempt).
    func recordAlertAttempt(_ alert: ClaimedAlert, at: Date, status: Int?, error: String?, durationMs: Double,
                            delivered: Bool, retryAt: Date?) throws {
        let now = ServerStore.millis(at)
        try database.write { connection in
            let state: Int = delivered ? 1 : (alert.url == nil ? 3 : (retryAt == nil ? 2 : 0))
            try connection.execute("""
                UPDATE alert_outbox SET state = ?, delivered_at = ?, next_attempt_at = ?, last_error = ?
                WHERE id = ? AND attempts = ? AND state = 0
                """, [.int(state), delivered ? .integer(now) : .null, .integer(retryAt.map(ServerStore.millis) ?? now),
                      .optional(error), .text(alert.id), .int(alert.attempt)])
            guard alert.url != nil else { return }
            try connection.execute("""
                INSERT INTO alert_deliveries (alert_id, project_id, rule_id, attempt, attempted_at, status, error, duration_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(alert.id), .integer(alert.projectID), .integer(alert.ruleID), .int(alert.attempt), .integer(now),
                      status.map { .int($0) } ?? .null, .optional(error), .real(durationMs)])
        }
    }

    // MARK: Retention

    /// Deletes up to `limit` finished alerts (delivered, failed or dropped) made before
    /// `cutoff`, oldest first, in one short transaction; returns how many. Pending alerts are
    /// never deleted, nor the cooldown rows (they are what keeps a new-issue rule from firing
    /// twice for one issue). Several servers: rows another one is deleting are skipped (`SKIP
    /// LOCKED` on PostgreSQL). Cost: a range read of the `alert_outbox_finished` index.
    public func pruneFinishedAlerts(before cutoff: Date, limit: Int) throws -> Int {
        try database.write { connection in
            try connection.query("""
                WITH doomed AS MATERIALIZED (
                    SELECT id FROM alert_outbox WHERE state <> 0 AND created_at < ?
                    ORDER BY created_at LIMIT ?\(connection.dialect.claimRows))
                DELETE FROM alert_outbox WHERE state <> 0 AND id IN (SELECT id FROM doomed) RETURNING id
                """, [.integer(ServerStore.millis(cutoff)), .int(max(1, limit))]).count
        }
    }

    /// Deletes up to `limit` delivery-log rows of attempts made before `cutoff`, oldest first,
    /// in one short transaction; returns how many. The attempts of an alert still pending stay
    /// (its log is still being written). Cost: a range read of the `alert_deliveries_time` index.
    public func pruneAlertDeliveries(before cutoff: Date, limit: Int) throws -> Int {
        try database.write { connection in
            try connection.query("""
                WITH doomed AS MATERIALIZED (
                    SELECT d.id FROM alert_deliveries d WHERE d.attempted_at < ? AND NOT EXISTS (
                        SELECT 1 FROM alert_outbox o WHERE o.id = d.alert_id AND o.state = 0)
                    ORDER BY d.attempted_at LIMIT ?\(connection.dialect.claimRows))
                DELETE FROM alert_deliveries WHERE id IN (SELECT id FROM doomed) RETURNING id
                """, [.integer(ServerStore.millis(cutoff)), .int(max(1, limit))]).count
        }
    }

    /// The project's latest alerts, newest first.
    public func alerts(projectID: Int64, limit: Int = 100) throws -> [AlertRecord] {
        try database.read { connection in
            try connection.query("""
                SELECT id, rule_id, subject, summary, created_at, state, attempts, next_attempt_at, delivered_at, last_error
                FROM alert_outbox WHERE project_id = ? ORDER BY created_at DESC, id LIMIT ?
                """, [.integer(projectID), .int(max(1, min(limit, 1000)))]).map { row in
                let state = row.int("state")
                return AlertRecord(id: row.string("id") ?? "", ruleID: row.int64("rule_id"), subject: row.string("subject") ?? "",
                                   text: row.string("summary") ?? "", createdAt: ServerStore.date(row.int64("created_at")),
                                   state: Self.outboxStates.indices.contains(state) ? Self.outboxStates[state] : "unknown",
                                   attempts: row.int("attempts"),
                                   nextAttemptAt: state == 0 ? ServerStore.date(row.int64("next_attempt_at")) : nil,
                                   deliveredAt: row["delivered_at"].int64.map(ServerStore.date), lastError: row.string("last_error"))
            }
        }
    }

    /// The project's latest delivery attempts, newest first.
    public func alertDeliveries(projectID: Int64, limit: Int = 100) throws -> [AlertDeliveryRecord] {
        try database.read { connection in
            try connection.query("""
                SELECT alert_id, rule_id, attempt, attempted_at, status, error, duration_ms FROM alert_deliveries
                WHERE project_id = ? ORDER BY id DESC LIMIT ?
                """, [.integer(projectID), .int(max(1, min(limit, 1000)))]).map { row in
                AlertDeliveryRecord(alertID: row.string("alert_id") ?? "", ruleID: row.int64("rule_id"), attempt: row.int("attempt"),
                                    attemptedAt: ServerStore.date(row.int64("attempted_at")), status: row["status"].int,
                                    error: row.string("error"), durationMs: row.double("duration_ms"))
            }
        }
    }
}
