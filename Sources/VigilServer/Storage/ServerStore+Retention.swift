import Foundation

extension ServerStore {
    /// Deletes up to `limit` raw events of one project and type that happened (`occurred_at`)
    /// before `cutoff` and are processed (state 1), oldest first, in one short transaction;
    /// returns how many it deleted. Cost: one indexed range read of `apm_event_type`, the
    /// deletes, and a few small upserts.
    ///
    /// What stays right: roll-ups and sketches are separate tables and are not touched; an
    /// issue's `event_count`, `user_count`, versions and first/last seen are counters that the
    /// delete does not change, and what was pruned from each issue is kept (`issue_pruned` per
    /// version, the sessions marked in `issue_users`) so that a later recount from the
    /// remaining events still includes it. `event_counts` drops by the rows deleted: it counts
    /// the raw events stored now. Events waiting for (re-)processing are never pruned.
    ///
    /// Two servers pruning at once: on PostgreSQL the rows one claims are skipped by the other
    /// (`SKIP LOCKED`), and only the rows a delete really removed are tallied (`RETURNING`).
    public func pruneEvents(projectID: Int64, type: String, before cutoff: Date, limit: Int) throws -> Int {
        let limit = max(1, limit)
        return try database.write { connection -> Int in
            let skip = connection.dialect.claimRows
            // The batch is chosen once (a materialized CTE): as a plain `IN (subquery)` PostgreSQL
            // may rescan the subquery per row, and the rows this command deleted are skipped by
            // its lock, so each rescan brings the next ones and the limit no longer holds.
            let deleted = try connection.query("""
                WITH doomed AS MATERIALIZED (
                    SELECT id FROM apm_event WHERE project_id = ? AND type = ? AND occurred_at < ? AND state = 1
                    ORDER BY occurred_at LIMIT ?\(skip))
                DELETE FROM apm_event WHERE project_id = ? AND state = 1 AND id IN (SELECT id FROM doomed)
                RETURNING id, issue_id, app_version, occurred_at, session_id
                """, [.integer(projectID), .text(type), .integer(Self.millis(cutoff)), .int(limit), .integer(projectID)])
            guard !deleted.isEmpty else { return 0 }
            // Per issue and version: what left, kept for recounts; and the issues' sessions.
            struct Tally { var count: Int64 = 0; var first = Int64.max; var last = Int64.min }
            struct Key: Hashable, Comparable {
                var issue: Int64, text: String
                static func < (a: Key, b: Key) -> Bool { (a.issue, a.text) < (b.issue, b.text) }
            }
            var tallies: [Key: Tally] = [:]
            var sessions = Set<Key>()
            var ids: [String] = []
            ids.reserveCapacity(deleted.count)
            for row in deleted {
                ids.append(row.string("id") ?? "")
                guard let issue = row["issue_id"].int64 else { continue }
                let at = row.int64("occurred_at")
                let key = Key(issue: issue, text: row.string("app_version") ?? "")
                var tally = tallies[key] ?? Tally()
                tally.count += 1
                tally.first = min(tally.first, at)
                tally.last = max(tally.last, at)
                tallies[key] = tally
                sessions.insert(Key(issue: issue, text: row.string("session_id") ?? ""))
            }
            var values: [SQLValue] = []
            for (key, tally) in tallies.sorted(by: { $0.key < $1.key }) {
                values += [.integer(key.issue), .text(key.text), .integer(tally.count), .integer(tally.first), .integer(tally.last)]
            }
            if !values.isEmpty {
                _ = try connection.insertRowsInStatements(
                    into: "issue_pruned", columns: ["issue_id", "app_version", "event_count", "first_seen", "last_seen"],
                    values: values, clause: """
                        ON CONFLICT (issue_id, app_version) DO UPDATE SET event_count = issue_pruned.event_count + excluded.event_count,
                            first_seen = CASE WHEN excluded.first_seen < issue_pruned.first_seen THEN excluded.first_seen ELSE issue_pruned.first_seen END,
                            last_seen = CASE WHEN excluded.last_seen > issue_pruned.last_seen THEN excluded.last_seen ELSE issue_pruned.last_seen END
                        """)
            }
            for session in sessions.sorted() {
                try connection.execute("UPDATE issue_users SET pruned = 1 WHERE issue_id = ? AND user_key = ? AND pruned = 0",
                                       [.integer(session.issue), .text(session.text)])
            }
            // Their missing-symbol links: they can no longer be processed again.
            ids.sort()
            var start = 0
            while start < ids.count {
                let chunk = ids[start..<min(start + 200, ids.count)]
                start += chunk.count
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                try connection.execute("DELETE FROM event_missing_symbols WHERE project_id = ? AND event_id IN (\(marks))",
                                       [.integer(projectID)] + chunk.map { .text($0) })
            }
            if type == "network" { try Self.deleteRequestFacts(on: connection, projectID: projectID, ids: ids) }
            var counts = EventCountDelta()
            counts.add(projectID: projectID, state: 1, -deleted.count)
            try counts.write(on: connection)
            return deleted.count
        }
    }
}
