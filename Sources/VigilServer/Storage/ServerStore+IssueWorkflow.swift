import Foundation

/// A change of an issue's state someone asks for (API or dashboard).
public enum IssueAction: Sendable, Hashable {
    /// Resolved with no version: an event happening after now regresses it.
    case resolve
    /// Resolved in the release after the highest version the project has sent so far.
    case resolveInNextRelease
    /// Resolved in `version`: events from later versions regress it.
    case resolveInVersion(String)
    /// Ignored until reopened by hand.
    case ignore
    /// Ignored until `count` more events arrive (1…1,000,000,000).
    case ignoreUntilEvents(Int64)
    /// Ignored until `date`.
    case ignoreUntil(Date)
    /// Open again (clears any resolution, ignore or regression mark).
    case reopen
}

/// One line of an issue's audit: who changed its state, when, to what.
public struct IssueAuditEntry: Sendable, Hashable, Codable {
    /// When.
    public var at: Date
    /// Who: `admin token`, `dashboard session 1a2b3c4d`, or `vigil` for changes events caused.
    public var actor: String
    /// What: `resolved`, `ignored`, `reopened`, `regressed`.
    public var action: String
    /// The details: the version, the count or date, the event.
    public var detail: String?
}

/// Why an issue action was refused.
public enum IssueActionError: Error, Equatable, CustomStringConvertible {
    /// "In the next release" needs a version the project has sent.
    case noVersionSeen
    /// An argument is out of range or empty.
    case invalid(String)

    public var description: String {
        switch self {
        case .noVersionSeen:
            return "the project has sent no app version yet, so there is no next release; resolve without a version or in a named version"
        case .invalid(let reason): return reason
        }
    }
}

extension IssueState {
    /// The `issues` columns that hold the state.
    static let columns = "status, resolution, resolved_in, resolved_at, ignore_until_events, ignore_until, regressed_version, regressed_at"

    /// The state stored in `row` (which selected ``columns``).
    init(row: SQLRow) {
        self.init()
        status = row.string("status").flatMap(Status.init(rawValue:)) ?? .open
        resolution = row.string("resolution").flatMap(Resolution.init(rawValue:))
        resolvedIn = row.string("resolved_in")
        resolvedAt = row["resolved_at"].int64.map(ServerStore.date)
        ignoreUntilEvents = row["ignore_until_events"].int64
        ignoreUntil = row["ignore_until"].int64.map(ServerStore.date)
        regressedVersion = row.string("regressed_version")
        regressedAt = row["regressed_at"].int64.map(ServerStore.date)
    }

    /// `SET` assignments writing this state, and their arguments.
    var assignments: (sql: String, arguments: [SQLValue]) {
        ("status = ?, resolution = ?, resolved_in = ?, resolved_at = ?, ignore_until_events = ?, ignore_until = ?, "
            + "regressed_version = ?, regressed_at = ?",
         [.text(status.rawValue), .optional(resolution?.rawValue), .optional(resolvedIn), .optional(resolvedAt.map(ServerStore.millis)),
          .optional(ignoreUntilEvents), .optional(ignoreUntil.map(ServerStore.millis)), .optional(regressedVersion),
          .optional(regressedAt.map(ServerStore.millis))])
    }
}

extension ServerStore {
    /// The SQL condition selecting issues (alias `i`) whose status, as listed at `now`, is
    /// `filter` (`open`, `regressed`, `resolved`, `ignored`, or `unresolved`: open or regressed).
    static func stateCondition(_ filter: String, now: Date) -> (String, [SQLValue])? {
        let expired = "(i.status = 'ignored' AND i.ignore_until IS NOT NULL AND i.ignore_until <= ?)"
        let moment = SQLValue.integer(millis(now))
        switch filter {
        case "open": return ("(i.status = 'open' OR \(expired))", [moment])
        case "unresolved": return ("(i.status IN ('open', 'regressed') OR \(expired))", [moment])
        case "regressed": return ("i.status = 'regressed'", [])
        case "resolved": return ("i.status = 'resolved'", [])
        case "ignored": return ("(i.status = 'ignored' AND (i.ignore_until IS NULL OR i.ignore_until > ?))", [moment])
        default: return nil
        }
    }

    /// The state filters ``stateCondition(_:now:)`` knows, for validating requests.
    public static let issueStateFilters = ["unresolved", "open", "regressed", "resolved", "ignored", "all"]

    /// Applies `action` to an issue and records it in its audit with `actor`; returns the new
    /// state, or nil when the project has no such issue. One transaction; on PostgreSQL the
    /// issue's row is locked first, so a concurrent processing transaction either sees the
    /// state before this change or after it, never half of it.
    public func changeIssueState(projectID: Int64, issueID: Int64, action: IssueAction, actor: String,
                                 now: Date) throws -> IssueState? {
        switch action {
        case .resolveInVersion(let version):
            guard !version.isEmpty, version.count <= 200 else { throw IssueActionError.invalid("version: expected 1 to 200 characters") }
        case .ignoreUntilEvents(let count):
            guard count >= 1, count <= 1_000_000_000 else { throw IssueActionError.invalid("events: expected 1 to 1000000000") }
        case .ignoreUntil(let date):
            guard date > now else { throw IssueActionError.invalid("until: the date must be in the future") }
        default: break
        }
        return try database.write { connection -> IssueState? in
            let lock = connection.dialect == .postgres ? " FOR UPDATE" : ""
            guard let row = try connection.first("SELECT event_count FROM issues WHERE project_id = ? AND id = ?\(lock)",
                                                 [.integer(projectID), .integer(issueID)]) else { return nil }
            let events = row.int64("event_count")
            var next = IssueState()
            let name: String, detail: String?
            switch action {
            case .resolve:
                next.status = .resolved
                next.resolution = .plain
                next.resolvedAt = now
                name = "resolved"; detail = nil
            case .resolveInNextRelease:
                guard let latest = try Self.latestVersion(projectID: projectID, issueID: issueID, on: connection) else {
                    throw IssueActionError.noVersionSeen
                }
                next.status = .resolved
                next.resolution = .nextRelease
                next.resolvedIn = latest
                next.resolvedAt = now
                name = "resolved"; detail = "in the next release (after \(latest))"
            case .resolveInVersion(let version):
                next.status = .resolved
                next.resolution = .version
                next.resolvedIn = version
                next.resolvedAt = now
                name = "resolved"; detail = "in \(version)"
            case .ignore:
                next.status = .ignored
                name = "ignored"; detail = nil
            case .ignoreUntilEvents(let count):
                next.status = .ignored
                next.ignoreUntilEvents = events + count
                name = "ignored"; detail = "until \(count) more events"
            case .ignoreUntil(let date):
                next.status = .ignored
                next.ignoreUntil = date
                name = "ignored"; detail = "until " + ISO8601DateFormatter().string(from: date)
            case .reopen:
                name = "reopened"; detail = nil
            }
            let (assignments, arguments) = next.assignments
            try connection.execute("UPDATE issues SET \(assignments) WHERE id = ?", arguments + [.integer(issueID)])
            try Self.audit(projectID: projectID, issueID: issueID, at: Self.millis(now), actor: actor, action: name, detail: detail,
                           on: connection)
            return next
        }
    }

    /// The issue's audit, newest first.
    public func issueAudit(projectID: Int64, issueID: Int64, limit: Int = 100) throws -> [IssueAuditEntry] {
        try database.read { connection in
            try connection.query("""
                SELECT at, actor, action, detail FROM issue_audit WHERE issue_id = ? AND project_id = ? ORDER BY at DESC, id DESC LIMIT ?
                """, [.integer(issueID), .integer(projectID), .int(max(1, min(limit, 1000)))]).map { row in
                IssueAuditEntry(at: Self.date(row.int64("at")), actor: row.string("actor") ?? "", action: row.string("action") ?? "",
                                detail: row.string("detail"))
            }
        }
    }

    /// The highest app version the project has sent (its roll-ups), else the issue's own.
    private static func latestVersion(projectID: Int64, issueID: Int64, on connection: any DatabaseConnection) throws -> String? {
        var versions = try connection.query(
            "SELECT DISTINCT app_version FROM rollup_sums WHERE project_id = ? AND metric = 'events'",
            [.integer(projectID)]).compactMap { $0.string("app_version") }
        if versions.isEmpty {
            versions = try connection.query("SELECT app_version FROM issue_versions WHERE issue_id = ?", [.integer(issueID)])
                .compactMap { $0.string("app_version") }
        }
        return versions.filter { !$0.isEmpty }.sorted().max(by: versionPrecedes)
    }

    private static func audit(projectID: Int64, issueID: Int64, at: Int64, actor: String, action: String, detail: String?,
                              on connection: any DatabaseConnection) throws {
        try connection.execute("INSERT INTO issue_audit (project_id, issue_id, at, actor, action, detail) VALUES (?, ?, ?, ?, ?, ?)",
                               [.integer(projectID), .integer(issueID), .integer(at), .text(String(actor.prefix(200))),
                                .text(action), .optional(detail)])
    }

    /// Decides the transitions of the issues the processing upsert just wrote (`rows`: what it
    /// returned, the rows locked by it until the transaction ends), writes the state changes and
    /// their audit, and appends the transitions. Only issues that got new events take part.
    ///
    /// The upsert locked each row and returned its state as committed by any transaction that
    /// wrote it before (PostgreSQL re-reads a conflicting row once its lock is free), so of two
    /// servers attaching events to one resolved issue exactly one sees it resolved; the
    /// `WHERE status = …` of the update is a second guard.
    static func decideTransitions(_ rows: [SQLRow], batch: ProcessingBatch, on connection: any DatabaseConnection, now: Int64,
                                  into transitions: inout [IssueTransition]) throws {
        let moment = date(now)
        for row in rows {
            let key = IssueKey(projectID: row.int64("project_id"), fingerprint: row.string("fingerprint") ?? "")
            guard let delta = batch.issues[key], delta.newEvents > 0 else { continue }
            let issueID = row.int64("id")
            func transition(_ kind: IssueTransition.Kind) -> IssueTransition {
                IssueTransition(projectID: key.projectID, issueID: issueID, fingerprint: key.fingerprint,
                                issueKind: row.string("kind") ?? delta.observation.kind, title: row.string("title") ?? "",
                                kind: kind, eventID: delta.lastEventID, at: moment)
            }
            if row.int("upsert_new") == 1 {
                transitions.append(transition(.newIssue))
                continue
            }
            let state = IssueState(row: row)
            guard state.status == .resolved || state.status == .ignored else { continue }
            guard let (next, kind) = state.afterEvents(eventCount: row.int64("event_count"),
                                                       versions: delta.versions.mapValues(\.last), now: moment) else { continue }
            let (assignments, arguments) = next.assignments
            let changed = try connection.execute("UPDATE issues SET \(assignments) WHERE id = ? AND status = ?",
                                                 arguments + [.integer(issueID), .text(state.status.rawValue)])
            guard changed == 1 else { continue }
            switch kind {
            case .regressed(let version):
                try audit(projectID: key.projectID, issueID: issueID, at: now, actor: "vigil", action: "regressed",
                          detail: "in \(version) (event \(delta.lastEventID))", on: connection)
            case .reopenedAfterIgnore:
                let why = state.ignoreUntilEvents != nil ? "its ignore limit of events was reached" : "its ignore date passed"
                try audit(projectID: key.projectID, issueID: issueID, at: now, actor: "vigil", action: "reopened",
                          detail: "\(why) (event \(delta.lastEventID))", on: connection)
            case .newIssue:
                break
            }
            transitions.append(transition(kind))
        }
    }
}
