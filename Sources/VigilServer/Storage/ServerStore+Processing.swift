import Foundation

/// The statements one processing transaction runs: claim waiting events, then write what
/// their analysis produced — issues, the events' results, roll-ups and missing symbols.
///
/// Every multi-row write goes in a fixed key order so that two servers processing at once
/// lock rows in the same order and cannot deadlock.
extension ServerStore {
    /// Claims up to `limit` waiting events, oldest first. On PostgreSQL rows another
    /// transaction holds are skipped (`FOR UPDATE SKIP LOCKED`), so concurrent processors on
    /// one database never take the same event; the claim lasts until the transaction ends.
    static func claimPending(on connection: any DatabaseConnection, limit: Int) throws -> [PendingEvent] {
        let rows = try connection.query("""
            SELECT project_id, id, type, received_at, occurred_at, app_id, app_version, app_build, os, os_version, device_model,
                   page, session_id, duration_ms, user_key,
                   payload_json, images_json, state, issue_id, fingerprint
            FROM apm_event WHERE state <> 1 ORDER BY received_at LIMIT ?\(connection.dialect.claimRows)
            """, [.int(limit)])
        return rows.map { row in
            PendingEvent(projectID: row.int64("project_id"), id: row.string("id") ?? "", type: row.string("type") ?? "",
                         receivedAt: row.int64("received_at"), occurredAt: row.int64("occurred_at"),
                         appID: row.string("app_id") ?? "", appVersion: row.string("app_version") ?? "",
                         appBuild: row.string("app_build") ?? "", os: row.string("os") ?? "",
                         osVersion: row.string("os_version") ?? "", deviceModel: row.string("device_model") ?? "",
                         page: row.string("page"),
                         sessionID: row.string("session_id") ?? "", durationMs: row["duration_ms"].double,
                         payloadJSON: row.string("payload_json") ?? "{}", imagesJSON: row.string("images_json"),
                         state: row.int("state"), issueID: row["issue_id"].int64, userKey: row.string("user_key"),
                         fingerprint: row.string("fingerprint"))
        }
    }

    /// Writes the results of one batch and marks its events processed at `now` (ms); returns
    /// the issue transitions it decided (also handed to `onTransitions` before the counts, the
    /// transaction's last statement).
    @discardableResult
    static func apply(_ batch: ProcessingBatch, on connection: any DatabaseConnection, now: Int64,
                      onTransitions: IssueTransitionHandler? = nil) throws -> [IssueTransition] {
        var transitions: [IssueTransition] = []
        let issueIDs = try upsertIssues(batch, on: connection, now: now, transitions: &transitions)
        try markProcessed(batch, issueIDs: issueIDs, on: connection, now: now)
        // The claimed events (locked on PostgreSQL; read by this server's one processor at a
        // time on SQLite, whose file one server serves) left the state they were claimed in.
        var counts = EventCountDelta()
        for analysis in batch.analyses {
            counts.move(projectID: analysis.event.projectID, from: analysis.event.state, to: 1, 1)
        }
        try applyAggregates(batch, issueIDs: issueIDs, on: connection, now: now, counts: &counts)
        if let onTransitions, !transitions.isEmpty { try onTransitions(transitions, connection) }
        try counts.write(on: connection)
        return transitions
    }

    /// Step 1 of ``apply(_:on:now:)``: upserts the batch's issues, in fingerprint order, with
    /// their new users and versions; returns each issue's id.
    ///
    /// Multi-row statements (issues, then users, then versions, each in key order), so a batch
    /// touching many issues costs a few statements — round trips on PostgreSQL — not four per issue.
    /// The issues' workflow transitions (new, regressed, back from ignore) are decided right
    /// after their upsert, on the rows it locked, and appended to `transitions` in key order.
    static func upsertIssues(_ batch: ProcessingBatch, on connection: any DatabaseConnection, now: Int64,
                             transitions: inout [IssueTransition]) throws -> [IssueKey: Int64] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let sorted = batch.issues.sorted(by: { $0.key < $1.key })
        // 1. Issues, in fingerprint order.
        var issueIDs: [IssueKey: Int64] = [:]
        var start = 0
        while start < sorted.count {
            let chunk = sorted[start..<min(start + 50, sorted.count)]
            start += chunk.count
            var arguments: [SQLValue] = []
            arguments.reserveCapacity(chunk.count * 12)
            for (key, delta) in chunk {
                let classification = delta.observation.classification.flatMap { try? encoder.encode($0) }
                    .map { String(decoding: $0, as: UTF8.self) }
                arguments += [.integer(key.projectID), .text(delta.observation.kind), .text(key.fingerprint),
                              .text(delta.observation.title), .optional(delta.observation.subtitle), .text(delta.observation.framesJSON),
                              .optional(classification), .int(delta.observation.symbolicated ? 1 : 0), .int(delta.newEvents),
                              .integer(delta.firstSeen), .integer(delta.lastSeen), .text(delta.lastEventID)]
            }
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, 1)", count: chunk.count).joined(separator: ", ")
            // `upsert_new` is 1 only in the statement that inserted the row: how the transitions
            // tell a new issue from one another transaction (or server) created first.
            let rows = try connection.query("""
                INSERT INTO issues (project_id, kind, fingerprint, title, subtitle, frames_json, classification_json,
                    symbolicated, event_count, user_count, first_seen, last_seen, last_event_id, upsert_new)
                VALUES \(values)
                ON CONFLICT (project_id, fingerprint) DO UPDATE SET
                    upsert_new = 0,
                    event_count = issues.event_count + excluded.event_count,
                    first_seen = CASE WHEN excluded.first_seen < issues.first_seen THEN excluded.first_seen ELSE issues.first_seen END,
                    last_seen = CASE WHEN excluded.last_seen > issues.last_seen THEN excluded.last_seen ELSE issues.last_seen END,
                    last_event_id = CASE WHEN excluded.last_seen >= issues.last_seen OR issues.last_event_id IS NULL
                        THEN excluded.last_event_id ELSE issues.last_event_id END,
                    title = excluded.title, subtitle = excluded.subtitle, frames_json = excluded.frames_json,
                    symbolicated = excluded.symbolicated,
                    classification_json = COALESCE(excluded.classification_json, issues.classification_json)
                RETURNING id, project_id, fingerprint, kind, title, event_count, upsert_new, \(IssueState.columns)
                """, arguments)
            for row in rows {
                issueIDs[IssueKey(projectID: row.int64("project_id"), fingerprint: row.string("fingerprint") ?? "")] = row.int64("id")
            }
            try decideTransitions(rows.sorted { $0.int64("id") < $1.int64("id") }, batch: batch, on: connection, now: now,
                                  into: &transitions)
        }
        guard issueIDs.count == sorted.count else {
            throw DatabaseError(backend: connection.dialect == .sqlite ? .sqlite : .postgres, code: "issues",
                                message: "the issue upsert returned \(issueIDs.count) ids for \(sorted.count) issues",
                                operation: "upsert issues")
        }
        // 2. Users: distinct sessions; each issue counts only the ones it had not seen.
        var users: [(issueID: Int64, user: String)] = []
        for (key, delta) in sorted {
            let id = issueIDs[key] ?? 0
            for user in delta.users.sorted() { users.append((id, user)) }
        }
        var added: [Int64: Int] = [:]
        start = 0
        while start < users.count {
            let chunk = users[start..<min(start + 200, users.count)]
            start += chunk.count
            let values = Array(repeating: "(?, ?)", count: chunk.count).joined(separator: ", ")
            var arguments: [SQLValue] = []
            arguments.reserveCapacity(chunk.count * 2)
            for (id, user) in chunk { arguments.append(.integer(id)); arguments.append(.text(user)) }
            for row in try connection.query(
                "INSERT INTO issue_users (issue_id, user_key) VALUES \(values) ON CONFLICT DO NOTHING RETURNING issue_id",
                arguments) {
                added[row.int64("issue_id"), default: 0] += 1
            }
        }
        for (key, _) in sorted {
            guard let id = issueIDs[key], let count = added[id], count > 0 else { continue }
            try connection.execute("UPDATE issues SET user_count = user_count + ? WHERE id = ?", [.int(count), .integer(id)])
        }
        // 3. Versions: per issue and app version, the new events and their first and last seen.
        var versions: [SQLValue] = []
        var versionRows = 0
        func flushVersions() throws {
            guard versionRows > 0 else { return }
            try connection.execute("""
                INSERT INTO issue_versions (issue_id, app_version, event_count, first_seen, last_seen)
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?)", count: versionRows).joined(separator: ", "))
                ON CONFLICT (issue_id, app_version) DO UPDATE SET
                    event_count = issue_versions.event_count + excluded.event_count,
                    first_seen = CASE WHEN excluded.first_seen < issue_versions.first_seen THEN excluded.first_seen ELSE issue_versions.first_seen END,
                    last_seen = CASE WHEN excluded.last_seen > issue_versions.last_seen THEN excluded.last_seen ELSE issue_versions.last_seen END
                """, versions)
            versions.removeAll(keepingCapacity: true)
            versionRows = 0
        }
        for (key, delta) in sorted {
            let id = issueIDs[key] ?? 0
            for (version, stats) in delta.versions.sorted(by: { $0.key < $1.key }) where stats.count > 0 {
                versions += [.integer(id), .text(version), .int(stats.count), .integer(stats.first), .integer(stats.last)]
                versionRows += 1
                if versionRows == 100 { try flushVersions() }
            }
        }
        try flushVersions()
        return issueIDs
    }

    /// Step 2 of ``apply(_:on:now:)``: the claimed events get their results and state 1.
    private static func markProcessed(_ batch: ProcessingBatch, issueIDs: [IssueKey: Int64], on connection: any DatabaseConnection,
                                      now: Int64) throws {
        // The events: those with an issue by a join against their values, the rest in bulk.
        var withIssue: [(projectID: Int64, id: String, fingerprint: String, issueID: Int64, frames: String)] = []
        var plain: [Int64: [String]] = [:]
        for analysis in batch.analyses {
            let event = analysis.event
            if let issue = analysis.issue, let id = issueIDs[IssueKey(projectID: event.projectID, fingerprint: issue.fingerprint.value)] {
                withIssue.append((event.projectID, event.id, issue.fingerprint.value, id, issue.framesJSON))
            } else {
                plain[event.projectID, default: []].append(event.id)
            }
        }
        withIssue.sort { ($0.projectID, $0.id) < ($1.projectID, $1.id) }
        var start = 0
        while start < withIssue.count {
            let chunk = withIssue[start..<min(start + 100, withIssue.count)]
            start += chunk.count
            // Casts give PostgreSQL the values' types; SQLite names VALUES columns column1…5.
            let row = "(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT))"
            let values = Array(repeating: row, count: chunk.count).joined(separator: ", ")
            var arguments: [SQLValue] = [.integer(now)]
            for item in chunk {
                arguments += [.integer(item.projectID), .text(item.id), .text(item.fingerprint), .integer(item.issueID), .text(item.frames)]
            }
            let sql: String
            if connection.dialect == .postgres {
                sql = """
                    UPDATE apm_event SET state = 1, processed_at = ?, fingerprint = v.fingerprint, issue_id = v.issue_id,
                        frames_json = v.frames FROM (VALUES \(values)) AS v(project_id, id, fingerprint, issue_id, frames)
                    WHERE apm_event.project_id = v.project_id AND apm_event.id = v.id
                    """
            } else {
                sql = """
                    UPDATE apm_event SET state = 1, processed_at = ?, fingerprint = v.column3, issue_id = v.column4,
                        frames_json = v.column5 FROM (VALUES \(values)) AS v
                    WHERE apm_event.project_id = v.column1 AND apm_event.id = v.column2
                    """
            }
            try connection.execute(sql, arguments)
        }
        for (projectID, ids) in plain.sorted(by: { $0.key < $1.key }) {
            var start = 0
            let sorted = ids.sorted()
            while start < sorted.count {
                let chunk = sorted[start..<min(start + 500, sorted.count)]
                start += chunk.count
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                try connection.execute("UPDATE apm_event SET state = 1, processed_at = ? WHERE project_id = ? AND id IN (\(marks))",
                                       [.integer(now), .integer(projectID)] + chunk.map { .text($0) })
            }
        }
    }

    /// Steps 3 to 5 of ``apply(_:on:now:)``, once the events are marked: recounts issues that
    /// re-processed events left or joined, adds the roll-ups and records missing symbols (or
    /// queues the events again when those symbols arrived meanwhile).
    static func applyAggregates(_ batch: ProcessingBatch, issueIDs: [IssueKey: Int64], on connection: any DatabaseConnection,
                                now: Int64, counts: inout EventCountDelta) throws {
        // 3. Issues that lost re-processed events (their fingerprint changed) are recounted.
        var recount = batch.issuesToRecount
        for analysis in batch.analyses where analysis.event.isReprocessing {
            if let issue = analysis.issue,
               let id = issueIDs[IssueKey(projectID: analysis.event.projectID, fingerprint: issue.fingerprint.value)] {
                recount.insert(id)
            }
        }
        for issueID in recount.sorted() {
            try recountIssue(issueID, on: connection)
        }
        // 4. Roll-ups, in key order.
        try upsertSums(batch.sums, on: connection)
        try upsertHistograms(batch.histograms, on: connection)
        try upsertSketches(batch.sketches, on: connection)
        // 5. Images that needed symbols.
        for (key, missing) in batch.missingSymbols.sorted(by: { ($0.key.projectID, $0.key.debugID) < ($1.key.projectID, $1.key.debugID) }) {
            // Symbols uploaded while this batch was analyzed: queue its events again instead.
            if try connection.first("SELECT 1 FROM symbol_files WHERE project_id = ? AND debug_id = ?",
                                    [.integer(key.projectID), .text(key.debugID)]) != nil {
                for eventID in missing.events.sorted() {
                    // Marked processed (state 1) earlier in this transaction.
                    let changed = try connection.execute("UPDATE apm_event SET state = 2 WHERE project_id = ? AND id = ? AND state = 1",
                                                         [.integer(key.projectID), .text(eventID)])
                    counts.move(projectID: key.projectID, from: 1, to: 2, changed)
                }
                continue
            }
            try connection.execute("""
                INSERT INTO missing_symbols (project_id, debug_id, arch, image_name, event_count, first_seen, last_seen)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (project_id, debug_id) DO UPDATE SET event_count = missing_symbols.event_count + excluded.event_count,
                    last_seen = excluded.last_seen
                """, [.integer(key.projectID), .text(key.debugID), .text(missing.arch), .text(missing.name),
                      .int(missing.events.count), .integer(now), .integer(now)])
            let events = missing.events.sorted()
            var next = 0
            while next < events.count {
                let chunk = events[next..<min(next + 200, events.count)]
                next += chunk.count
                let values = Array(repeating: "(?, ?, ?)", count: chunk.count).joined(separator: ", ")
                var arguments: [SQLValue] = []
                for eventID in chunk { arguments += [.integer(key.projectID), .text(key.debugID), .text(eventID)] }
                try connection.execute(
                    "INSERT INTO event_missing_symbols (project_id, debug_id, event_id) VALUES \(values) ON CONFLICT DO NOTHING",
                    arguments)
            }
        }
    }

    /// Recomputes an issue's counts from its events (after events moved away from it), and
    /// deletes it when none are left. Events retention pruned count too: their tallies per
    /// version are in `issue_pruned` and their sessions stay in `issue_users` (marked pruned).
    static func recountIssue(_ issueID: Int64, on connection: any DatabaseConnection) throws {
        let stats = try connection.first("""
            SELECT COUNT(*) AS n, MIN(occurred_at) AS first, MAX(occurred_at) AS last FROM apm_event WHERE issue_id = ?
            """, [.integer(issueID)])
        let pruned = try connection.first("""
            SELECT CAST(COALESCE(SUM(event_count), 0) AS BIGINT) AS n, MIN(first_seen) AS first, MAX(last_seen) AS last
            FROM issue_pruned WHERE issue_id = ?
            """, [.integer(issueID)])
        let live = stats?.int64("n") ?? 0, gone = pruned?.int64("n") ?? 0
        try connection.execute("DELETE FROM issue_users WHERE issue_id = ? AND pruned = 0", [.integer(issueID)])
        try connection.execute("DELETE FROM issue_versions WHERE issue_id = ?", [.integer(issueID)])
        guard live + gone > 0 else {
            try connection.execute("DELETE FROM issues WHERE id = ?", [.integer(issueID)])
            try connection.execute("DELETE FROM issue_users WHERE issue_id = ?", [.integer(issueID)])
            return
        }
        let firsts = [live > 0 ? stats?["first"].int64 : nil, gone > 0 ? pruned?["first"].int64 : nil].compactMap { $0 }
        let lasts = [live > 0 ? stats?["last"].int64 : nil, gone > 0 ? pruned?["last"].int64 : nil].compactMap { $0 }
        try connection.execute("""
            INSERT INTO issue_users (issue_id, user_key) SELECT DISTINCT issue_id, session_id FROM apm_event WHERE issue_id = ?
            ON CONFLICT DO NOTHING
            """, [.integer(issueID)])
        let users = try connection.scalar("SELECT COUNT(*) FROM issue_users WHERE issue_id = ?", [.integer(issueID)]).int64 ?? 0
        try connection.execute("UPDATE issues SET event_count = ?, user_count = ?, first_seen = ?, last_seen = ? WHERE id = ?",
                               [.integer(live + gone), .integer(users), .integer(firsts.min() ?? 0),
                                .integer(lasts.max() ?? 0), .integer(issueID)])
        try connection.execute("""
            INSERT INTO issue_versions (issue_id, app_version, event_count, first_seen, last_seen)
            SELECT issue_id, app_version, SUM(n), MIN(first), MAX(last) FROM (
                SELECT issue_id, app_version, COUNT(*) AS n, MIN(occurred_at) AS first, MAX(occurred_at) AS last
                FROM apm_event WHERE issue_id = ? GROUP BY issue_id, app_version
                UNION ALL
                SELECT issue_id, app_version, event_count, first_seen, last_seen FROM issue_pruned WHERE issue_id = ?
            ) AS counted GROUP BY issue_id, app_version
            """, [.integer(issueID), .integer(issueID)])
    }

    private static func upsertSums(_ sums: [RollupKey: RollupSum], on connection: any DatabaseConnection) throws {
        let sorted = sums.sorted { $0.key < $1.key }
        var start = 0
        while start < sorted.count {
            let chunk = sorted[start..<min(start + 100, sorted.count)]
            start += chunk.count
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
            var arguments: [SQLValue] = []
            for (key, sum) in chunk {
                arguments += [.integer(key.projectID), .text(key.metric), .text(key.dimension), .text(key.appVersion),
                              .integer(key.day), .integer(sum.count), .real(sum.total)]
            }
            try connection.execute("""
                INSERT INTO rollup_sums (project_id, metric, dimension, app_version, day, count, total) VALUES \(values)
                ON CONFLICT (project_id, metric, dimension, app_version, day) DO UPDATE SET
                    count = rollup_sums.count + excluded.count, total = rollup_sums.total + excluded.total
                """, arguments)
        }
    }

    private static func upsertHistograms(_ histograms: [RollupKey: LogHistogram], on connection: any DatabaseConnection) throws {
        var rows: [(RollupKey, Int, Int64)] = []
        for (key, histogram) in histograms {
            for (bucket, count) in histogram.counts { rows.append((key, bucket, count)) }
        }
        rows.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + 100, rows.count)]
            start += chunk.count
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
            var arguments: [SQLValue] = []
            for (key, bucket, count) in chunk {
                arguments += [.integer(key.projectID), .text(key.metric), .text(key.dimension), .text(key.appVersion),
                              .integer(key.day), .int(bucket), .integer(count)]
            }
            try connection.execute("""
                INSERT INTO rollup_histograms (project_id, metric, dimension, app_version, day, bucket, count) VALUES \(values)
                ON CONFLICT (project_id, metric, dimension, app_version, day, bucket) DO UPDATE SET
                    count = rollup_histograms.count + excluded.count
                """, arguments)
        }
    }

    /// Raises the sketches' registers: an upsert keeping the higher rank (`max` on SQLite,
    /// `GREATEST` on PostgreSQL), so concurrent writers and replays agree whatever the order.
    private static func upsertSketches(_ sketches: [SketchRegisterKey: UInt8], on connection: any DatabaseConnection) throws {
        guard !sketches.isEmpty else { return }
        let rows = sketches.sorted { $0.key < $1.key }
        let greatest = connection.dialect == .sqlite ? "max" : "GREATEST"
        var values: [SQLValue] = []
        values.reserveCapacity(rows.count * 7)
        for (key, rank) in rows {
            values += [.integer(key.row.projectID), .text(key.row.metric), .text(key.row.dimension), .text(key.row.appVersion),
                       .integer(key.row.day), .int(key.register), .int(Int(rank))]
        }
        _ = try connection.insertRowsInStatements(
            into: "rollup_sketches", columns: ["project_id", "metric", "dimension", "app_version", "day", "register", "rank"],
            values: values,
            clause: "ON CONFLICT (project_id, metric, dimension, app_version, day, register) DO UPDATE SET rank = \(greatest)(rollup_sketches.rank, excluded.rank)")
    }
}
