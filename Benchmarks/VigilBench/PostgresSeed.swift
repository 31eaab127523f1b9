import Foundation
import VigilServer

/// Grows a project's events on PostgreSQL to many times what a load stored, consistently: the
/// events (and their request facts) copied `copies − 1` times, copy c with a new id and its
/// times exactly c days earlier, and the roll-ups, issue counts and event counts changed as
/// ingesting those copies would have changed them. Because a copy is its original shifted by
/// whole days, its roll-up rows are the original's with `day − c`: summed (histograms, sums)
/// or maxed (sketch registers) into the tables in SQL, without re-reading an event. Issue
/// user counts stay (the copies are the same users).
///
/// Cost: one `INSERT … SELECT` per table, tens of seconds per million events on a small machine.
enum PostgresSeed {
    static func grow(_ store: ServerStore, projectID: Int64, copies: Int) throws {
        guard copies > 1 else { return }
        let last = copies - 1
        try store.database.write { connection in
            func columns(_ table: String) throws -> [String] {
                try connection.query("""
                    SELECT column_name FROM information_schema.columns
                    WHERE table_name = '\(table)' AND table_schema = current_schema() ORDER BY ordinal_position
                    """).compactMap { $0[0].string }
            }
            func copy(_ table: String, id: String) throws {
                let names = try columns(table)
                let shifted: [String: String] = [
                    id: "\(id) || '.c' || g", "occurred_at": "occurred_at - g * 86400000::bigint",
                    "received_at": "received_at - g * 86400000::bigint",
                    "processed_at": "processed_at - g * 86400000::bigint",
                ]
                _ = try connection.execute("""
                    INSERT INTO \(table) (\(names.joined(separator: ", ")))
                    SELECT \(names.map { shifted[$0] ?? $0 }.joined(separator: ", "))
                    FROM \(table), generate_series(1, \(last)) AS g WHERE project_id = \(projectID)
                    """)
            }
            try copy("apm_event", id: "id")
            try copy("request_facts", id: "event_id")
            let key = "project_id, metric, dimension, app_version"
            _ = try connection.execute("""
                INSERT INTO rollup_sums (\(key), day, count, total)
                SELECT \(key), day - g, SUM(count), SUM(total) FROM rollup_sums, generate_series(1, \(last)) AS g
                WHERE project_id = \(projectID) GROUP BY \(key), day - g
                ON CONFLICT (\(key), day) DO UPDATE
                SET count = rollup_sums.count + EXCLUDED.count, total = rollup_sums.total + EXCLUDED.total
                """)
            _ = try connection.execute("""
                INSERT INTO rollup_histograms (\(key), day, bucket, count)
                SELECT \(key), day - g, bucket, SUM(count) FROM rollup_histograms, generate_series(1, \(last)) AS g
                WHERE project_id = \(projectID) GROUP BY \(key), day - g, bucket
                ON CONFLICT (\(key), day, bucket) DO UPDATE SET count = rollup_histograms.count + EXCLUDED.count
                """)
            _ = try connection.execute("""
                INSERT INTO rollup_sketches (\(key), day, register, rank)
                SELECT \(key), day - g, register, MAX(rank) FROM rollup_sketches, generate_series(1, \(last)) AS g
                WHERE project_id = \(projectID) GROUP BY \(key), day - g, register
                ON CONFLICT (\(key), day, register) DO UPDATE SET rank = GREATEST(rollup_sketches.rank, EXCLUDED.rank)
                """)
            let earlier = "\(last) * 86400000::bigint"
            _ = try connection.execute("""
                UPDATE issue_versions SET event_count = event_count * \(copies), first_seen = first_seen - \(earlier)
                WHERE issue_id IN (SELECT id FROM issues WHERE project_id = \(projectID))
                """)
            _ = try connection.execute("""
                UPDATE issues SET event_count = event_count * \(copies), first_seen = first_seen - \(earlier)
                WHERE project_id = \(projectID)
                """)
            _ = try connection.execute("UPDATE event_counts SET n = n * \(copies) WHERE project_id = \(projectID)")
        }
        // As autovacuum would have by the time anyone reads a grown table: statistics, and the
        // visibility map that lets a covering index (the issue counts') answer without the table.
        try store.database.read { _ = try $0.execute("VACUUM ANALYZE") }
    }
}
