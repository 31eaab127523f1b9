import Foundation

extension ServerStore {
    /// A link row (``ClickHouseEventRow/link(_:fingerprint:linked:)``) for every event the
    /// main database holds in an issue, each with its event id, in id order: what a ClickHouse
    /// shard moving to schema version 5 is given, so that the events it already holds (whose
    /// rows carry no fingerprint) count in their issues. Cost: one read of the issue events'
    /// columns (a tenth of the events, typically) and their rows held in memory at once.
    public func issueLinkRows() throws -> [(id: String, prefix: Data)] {
        try database.read { connection in
            try connection.query("""
                SELECT project_id, id, type, received_at, occurred_at, app_id, app_version, app_build, os, os_version,
                       device_model, page, session_id, fingerprint
                FROM apm_event WHERE issue_id IS NOT NULL AND fingerprint IS NOT NULL ORDER BY id
                """).map { row in
                let event = PendingEvent(projectID: row.int64("project_id"), id: row.string("id") ?? "", type: row.string("type") ?? "",
                                         receivedAt: row.int64("received_at"), occurredAt: row.int64("occurred_at"),
                                         appID: row.string("app_id") ?? "", appVersion: row.string("app_version") ?? "",
                                         appBuild: row.string("app_build") ?? "", os: row.string("os") ?? "",
                                         osVersion: row.string("os_version") ?? "", deviceModel: row.string("device_model") ?? "",
                                         page: row.string("page"), sessionID: row.string("session_id") ?? "", durationMs: nil,
                                         payloadJSON: "{}", imagesJSON: nil, state: 1, issueID: nil)
                return (event.id, ClickHouseEventRow.link(event, fingerprint: row.string("fingerprint") ?? "", linked: true))
            }
        }
    }
}
