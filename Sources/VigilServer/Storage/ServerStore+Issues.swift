import Foundation

/// An issue in a list: a group of crashes or hangs with one fingerprint.
public struct IssueSummary: Sendable, Hashable, Codable {
    /// Database or event id.
    public var id: Int64
    /// `crash` or `hang`.
    public var kind: String
    /// One line naming the failure and where it happened.
    public var title: String
    /// A second line: the reason, duration or page.
    public var subtitle: String?
    /// The grouping key (32 hex digits).
    public var fingerprint: String
    /// Events grouped into it.
    public var events: Int64
    /// Distinct sessions among them.
    public var users: Int64
    /// First occurrence.
    public var firstSeen: Date
    /// Latest occurrence.
    public var lastSeen: Date
    /// Whether its stack has function names.
    public var symbolicated: Bool
    /// App versions it was seen in, newest first.
    public var versions: [String]
    /// Where it stands in the workflow (open, resolved, ignored, regressed).
    public var state: IssueState
}

/// One app version's share of an issue.
public struct IssueVersionStats: Sendable, Hashable, Codable {
    /// App version.
    public var version: String
    /// Events counted.
    public var events: Int64
    /// First occurrence.
    public var firstSeen: Date
    /// Latest occurrence.
    public var lastSeen: Date
}

/// An issue with its stack, classification and versions.
public struct IssueDetail: Sendable, Hashable, Codable {
    /// The issue as listed.
    public var summary: IssueSummary
    /// The latest event's resolved stack.
    public var frames: [ResolvedFrame]
    /// The diagnosis, when an analyzer gave one.
    public var classification: IssueClassification?
    /// App versions, newest first.
    public var versions: [IssueVersionStats]
    /// The latest event's id.
    public var lastEventID: String?
}

/// An event in an issue's list.
public struct IssueEvent: Sendable, Hashable, Codable {
    /// Database or event id.
    public var id: String
    /// When it happened.
    public var time: Date
    /// Marketing version of the app.
    public var appVersion: String
    /// Build number of the app.
    public var appBuild: String
    /// Operating system name.
    public var os: String
    /// Operating system version.
    public var osVersion: String
    /// Hardware model of the device.
    public var deviceModel: String
    /// The page (screen) it belongs to.
    public var page: String?
    /// The app run that produced it.
    public var session: String
    /// The event's headline duration in milliseconds, when it has one.
    public var durationMs: Double?
}

/// How an issue list is ordered.
public enum IssueOrder: String, Sendable, CaseIterable {
    /// Most events first.
    case events
    /// Most distinct users first.
    case users
    /// Most recently seen first.
    case recent
}

extension ServerStore {
    /// The project's issues, optionally of one kind, seen in one version, and in one state as
    /// listed at `now` (one of ``issueStateFilters``; nil or `all`: every state).
    public func issues(projectID: Int64, kind: String? = nil, version: String? = nil, state: String? = nil,
                       order: IssueOrder = .events, limit: Int = 100, now: Date = Date()) throws -> [IssueSummary] {
        try database.read { connection in
            var sql = "SELECT i.* FROM issues i WHERE i.project_id = ?"
            var arguments: [SQLValue] = [.integer(projectID)]
            if let kind { sql += " AND i.kind = ?"; arguments.append(.text(kind)) }
            if let state, let (condition, values) = Self.stateCondition(state, now: now) {
                sql += " AND " + condition
                arguments += values
            }
            if let version {
                sql += " AND EXISTS (SELECT 1 FROM issue_versions v WHERE v.issue_id = i.id AND v.app_version = ?)"
                arguments.append(.text(version))
            }
            switch order {
            case .events: sql += " ORDER BY i.event_count DESC, i.user_count DESC, i.id"
            case .users: sql += " ORDER BY i.user_count DESC, i.event_count DESC, i.id"
            case .recent: sql += " ORDER BY i.last_seen DESC, i.id"
            }
            sql += " LIMIT ?"
            arguments.append(.int(max(1, min(limit, 1000))))
            let rows = try connection.query(sql, arguments)
            let versions = try Self.versionNames(on: connection, issueIDs: rows.map { $0.int64("id") })
            return rows.map { Self.summary($0, versions: versions[$0.int64("id")] ?? []) }
        }
    }

    /// The project's issues with ids in `ids`, by id (ids of other projects are left out).
    public func issues(projectID: Int64, ids: [Int64]) throws -> [Int64: IssueSummary] {
        guard !ids.isEmpty else { return [:] }
        return try database.read { connection in
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            let rows = try connection.query("SELECT * FROM issues WHERE project_id = ? AND id IN (\(marks))",
                                            [.integer(projectID)] + ids.map { .integer($0) })
            let versions = try Self.versionNames(on: connection, issueIDs: rows.map { $0.int64("id") })
            return Dictionary(uniqueKeysWithValues: rows.map { ($0.int64("id"), Self.summary($0, versions: versions[$0.int64("id")] ?? [])) })
        }
    }

    /// One issue with its details, or nil.
    public func issue(projectID: Int64, id: Int64) throws -> IssueDetail? {
        try database.read { connection in
            guard let row = try connection.first("SELECT * FROM issues WHERE project_id = ? AND id = ?",
                                                 [.integer(projectID), .integer(id)]) else { return nil }
            let stats = try connection.query("""
                SELECT app_version, event_count, first_seen, last_seen FROM issue_versions WHERE issue_id = ?
                ORDER BY last_seen DESC, app_version
                """, [.integer(id)]).map {
                IssueVersionStats(version: $0.string("app_version") ?? "", events: $0.int64("event_count"),
                                  firstSeen: ServerStore.date($0.int64("first_seen")), lastSeen: ServerStore.date($0.int64("last_seen")))
            }
            let decoder = JSONDecoder()
            let frames = row.string("frames_json").flatMap { try? decoder.decode([ResolvedFrame].self, from: Data($0.utf8)) } ?? []
            let classification = row.string("classification_json")
                .flatMap { try? decoder.decode(IssueClassification.self, from: Data($0.utf8)) }
            return IssueDetail(summary: Self.summary(row, versions: stats.map(\.version)), frames: frames,
                               classification: classification, versions: stats, lastEventID: row.string("last_event_id"))
        }
    }

    /// The latest events of an issue, narrowed by `conditions` on `apm_event` (a dashboard filter's).
    public func issueEvents(projectID: Int64, issueID: Int64, limit: Int = 50,
                            conditions: DashboardFilter.SQLFragment = DashboardFilter.SQLFragment()) throws -> [IssueEvent] {
        try database.read { connection in
            try connection.query("""
                SELECT id, occurred_at, app_version, app_build, os, os_version, device_model, page, session_id, duration_ms
                FROM apm_event WHERE issue_id = ? AND project_id = ?\(conditions.sql) ORDER BY occurred_at DESC, id LIMIT ?
                """, [.integer(issueID), .integer(projectID)] + conditions.arguments + [.int(max(1, min(limit, 1000)))]).map { row in
                IssueEvent(id: row.string("id") ?? "", time: ServerStore.date(row.int64("occurred_at")),
                           appVersion: row.string("app_version") ?? "", appBuild: row.string("app_build") ?? "",
                           os: row.string("os") ?? "", osVersion: row.string("os_version") ?? "",
                           deviceModel: row.string("device_model") ?? "", page: row.string("page"),
                           session: row.string("session_id") ?? "", durationMs: row["duration_ms"].double)
            }
        }
    }

    private static func versionNames(on connection: any DatabaseConnection, issueIDs: [Int64]) throws -> [Int64: [String]] {
        guard !issueIDs.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: issueIDs.count).joined(separator: ", ")
        var result: [Int64: [String]] = [:]
        for row in try connection.query("""
            SELECT issue_id, app_version FROM issue_versions WHERE issue_id IN (\(marks)) ORDER BY last_seen DESC, app_version
            """, issueIDs.map { .integer($0) }) {
            result[row.int64("issue_id"), default: []].append(row.string("app_version") ?? "")
        }
        return result
    }

    private static func summary(_ row: SQLRow, versions: [String]) -> IssueSummary {
        IssueSummary(id: row.int64("id"), kind: row.string("kind") ?? "", title: row.string("title") ?? "",
                     subtitle: row.string("subtitle"), fingerprint: row.string("fingerprint") ?? "",
                     events: row.int64("event_count"), users: row.int64("user_count"),
                     firstSeen: date(row.int64("first_seen")), lastSeen: date(row.int64("last_seen")),
                     symbolicated: row.int("symbolicated") != 0, versions: versions, state: IssueState(row: row))
    }
}
