import Foundation

/// The issue list under a filter, counted on ClickHouse: an event's issue is the fingerprint its
/// row carries (processing at ingest) as corrected by its link rows (``ClickHouseSchema/issueLinkType``,
/// written by the workers), so the main database's issue events are not read.
///
/// Cost: without link rows in the project (processing at ingest, no re-processing), one scan of
/// the project's crash and hang rows within the filter's partitions, reading its fingerprint,
/// session, time and filter columns only. With link rows, one more query for them (a sort-key
/// range) and the events they name grouped by (fingerprint, event) to add up their rows.
extension ClickHouseEventStore {
    public func issueCounts(projectID: Int64, types: [String], filter: RollupFilter) throws -> [IssueCountRow]? {
        guard !types.isEmpty else { return [] }
        let table = cluster.distributedTable
        let kinds = types.map(ClickHouseNode.literal).joined(separator: ", ")
        let links = "type IN \(ClickHouseSchema.issueLinkTypeList)"
        let clause = filterClause(filter)
        let linked = try cluster.entry.rows("SELECT count() FROM \(table) WHERE project_id = \(projectID) AND \(links)")
            .first?.first??.description != "0"
        let counted: String
        if !linked {
            counted = """
                SELECT fingerprint, session_id AS s, occurred_at AS t FROM \(table)
                WHERE project_id = \(projectID) AND type IN (\(kinds)) AND fingerprint != ''\(clause)
                """
        } else {
            // Events with link rows are counted from all their rows: a fingerprint holds the
            // event when its rows for it add up to more than zero (a row of its own and a link
            // count one each, an unlink minus one).
            let linkedIDs = "SELECT id FROM \(table) WHERE project_id = \(projectID) AND \(links)"
            counted = """
                SELECT fingerprint, session_id AS s, occurred_at AS t FROM \(table)
                WHERE project_id = \(projectID) AND type IN (\(kinds)) AND fingerprint != ''\(clause)
                  AND id GLOBAL NOT IN (\(linkedIDs))
                UNION ALL
                SELECT fingerprint, any(session_id) AS s, any(occurred_at) AS t FROM \(table)
                WHERE project_id = \(projectID)
                  AND (\(links) OR (type IN (\(kinds)) AND fingerprint != '' AND id GLOBAL IN (\(linkedIDs))))\(clause)
                GROUP BY fingerprint, id
                HAVING sum(if(type = \(ClickHouseNode.literal(ClickHouseSchema.issueUnlinkType)), -1, 1)) > 0
                """
        }
        return try cluster.entry.rows("""
            SELECT fingerprint, count(), uniqExact(s), min(t), max(t) FROM (\(counted))
            GROUP BY fingerprint
            """).map { row in
            guard row.count == 5 else { throw ClickHouseError.unexpectedAnswer("\(row.count) fields in an issue count row") }
            return IssueCountRow(fingerprint: row[0] ?? "", events: row[1].flatMap { Int64($0) } ?? 0,
                                 users: row[2].flatMap { Int64($0) } ?? 0, firstSeen: row[3].flatMap { Int64($0) } ?? 0,
                                 lastSeen: row[4].flatMap { Int64($0) } ?? 0)
        }
    }
}
