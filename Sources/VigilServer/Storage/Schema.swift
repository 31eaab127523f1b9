/// The server's tables and their migrations. The database records the version it is at in
/// `vigil_schema`; ``ServerStore/migrate()`` applies the missing steps in one transaction at
/// start, under an advisory lock on PostgreSQL so that two servers starting together do not race.
///
/// Times are milliseconds since 1970 (UTC) in `BIGINT` columns; JSON is stored as `TEXT`.
enum Schema {
    /// The version this server writes.
    static let currentVersion = 12

    /// Migration `n` (1-based) brings a database at version `n - 1` to `n`.
    static func migrations(_ dialect: SQLDialect) -> [[String]] {
        [version1(dialect), version2, version3(dialect), version4, version5(dialect), version6(dialect), version7(dialect), version8, version9(dialect),
         version10(dialect), version11(dialect), version12(dialect)]
    }

    /// Version 10: `request_facts` keyed by time. Its key was `(project_id, event_id)`: event
    /// ids are random, so every request stored put an entry at a random place of that index (a
    /// page to read and write back per request once the table outgrew the cache), besides a
    /// separate `(project_id, occurred_at)` index for the views' time ranges. The key is now
    /// `(project_id, occurred_at, event_id)`, which grows at its end and serves the time ranges
    /// itself: one index fewer per request, and no random one. On SQLite the table is
    /// `WITHOUT ROWID`, its rows stored in that order; on PostgreSQL the primary key is swapped.
    /// Rows are kept.
    private static func version10(_ d: SQLDialect) -> [String] {
        let columns = ServerStore.requestFactColumns.joined(separator: ", ")
        switch d {
        case .sqlite:
            return [
                """
                CREATE TABLE request_facts_by_time (
                    project_id BIGINT NOT NULL,
                    event_id TEXT NOT NULL,
                    occurred_at BIGINT NOT NULL,
                    app_version TEXT NOT NULL,
                    os_version TEXT NOT NULL,
                    device_model TEXT NOT NULL,
                    page TEXT,
                    network TEXT NOT NULL,
                    template TEXT,
                    status DOUBLE PRECISION,
                    failed SMALLINT NOT NULL,
                    duration_ms DOUBLE PRECISION,
                    total_ms DOUBLE PRECISION,
                    dns_ms DOUBLE PRECISION,
                    connect_ms DOUBLE PRECISION,
                    tls_ms DOUBLE PRECISION,
                    request_ms DOUBLE PRECISION,
                    ttfb_ms DOUBLE PRECISION,
                    response_ms DOUBLE PRECISION,
                    PRIMARY KEY (project_id, occurred_at, event_id)
                ) WITHOUT ROWID
                """,
                "INSERT INTO request_facts_by_time (\(columns)) SELECT \(columns) FROM request_facts",
                "DROP TABLE request_facts",
                "ALTER TABLE request_facts_by_time RENAME TO request_facts",
                "CREATE INDEX request_facts_version ON request_facts (project_id, app_version, occurred_at)",
                "CREATE INDEX request_facts_os ON request_facts (project_id, os_version, occurred_at)",
                "CREATE INDEX request_facts_device ON request_facts (project_id, device_model, occurred_at)",
                "CREATE INDEX request_facts_page ON request_facts (project_id, page, occurred_at)",
            ]
        case .postgres:
            return [
                "ALTER TABLE request_facts DROP CONSTRAINT request_facts_pkey",
                "ALTER TABLE request_facts ADD PRIMARY KEY (project_id, occurred_at, event_id)",
                "DROP INDEX request_facts_time",
            ]
        }
    }

    /// Version 12: a frame window's counts as columns of its `apm_event` row
    /// (`frames_rendered`, `frames_dropped`, `frames_slow`, `frames_severe`, `frames_frozen`;
    /// NULL for other types). Frame views filtered by OS version, device model or page sum them
    /// from the rows the filter indexes find, instead of parsing each window's JSON (which cost
    /// more than finding the row). Written with the row (no index, a few bytes per window);
    /// filled here from the windows already stored.
    private static func version12(_ d: SQLDialect) -> [String] {
        let columns = ServerStore.frameCountColumns
        let fields = ["frames", "dropped", "slow", "severe", "frozen"]
        // Read as a number first: a count stored as `290.0` or `2.9e2` must not fail the
        // migration (PostgreSQL refuses such text as a BIGINT), nor one beyond BIGINT's range.
        let fill = zip(columns, fields).map { column, field in
            let number = d.jsonNumber("payload_json", [field])
            return "\(column) = CASE WHEN ABS(\(number)) < 9.0e18 THEN CAST(\(number) AS BIGINT) END"
        }
        return columns.map { "ALTER TABLE apm_event ADD COLUMN \($0) BIGINT" }
            + ["UPDATE apm_event SET \(fill.joined(separator: ", ")) WHERE type = 'frames'"]
    }

    /// Version 11: alert rules can be edited and paused, and finished alerts are pruned.
    ///
    /// `alert_rules.window_seconds` is the window an `issue_events` rule counts over (NULL: an
    /// hour, as before); `alert_rules.resumed_at` is when a paused rule was last resumed, so
    /// that it counts only what happened after (NULL: never paused). The two indexes let
    /// retention find finished alerts (delivered, failed, dropped) and delivery-log rows by
    /// age without walking the tables.
    private static func version11(_ d: SQLDialect) -> [String] {
        [
            "ALTER TABLE alert_rules ADD COLUMN window_seconds BIGINT",
            "ALTER TABLE alert_rules ADD COLUMN resumed_at BIGINT",
            "CREATE INDEX alert_outbox_finished ON alert_outbox (created_at) WHERE state <> 0",
            "CREATE INDEX alert_deliveries_time ON alert_deliveries (attempted_at)",
        ]
    }

    /// Version 9: `request_facts`, one narrow row per `network` event with what the request
    /// views read from its payload and context (template, status, error flag, total and phase
    /// timings, network type) as plain columns, beside the event's filter columns. Written in
    /// the transaction that stores the event (``ServerStore/writeRequestFacts(on:projectID:facts:)``)
    /// and deleted with it, so it holds exactly the stored `network` events, processed or not.
    /// Filtered request views and the network breakdown read it instead of fetching each event's
    /// row from the much wider `apm_event` and parsing its JSON. Filled here from the events
    /// already stored.
    ///
    /// `apm_event_issue_counts`: a partial index over the events that belong to an issue (hangs
    /// and crashes, about a tenth of the events) holding every column the filtered issue counts
    /// read, so that counting issues over a time range and filter is an index-only scan instead
    /// of fetching each event's row.
    private static func version9(_ d: SQLDialect) -> [String] {
        let text = d == .postgres ? "TEXT COLLATE \"C\"" : "TEXT"
        let columns = ServerStore.requestFactColumns.joined(separator: ", ")
        return [
            """
            CREATE TABLE request_facts (
                project_id BIGINT NOT NULL,
                event_id \(text) NOT NULL,
                occurred_at BIGINT NOT NULL,
                app_version \(text) NOT NULL,
                os_version \(text) NOT NULL,
                device_model \(text) NOT NULL,
                page \(text),
                network \(text) NOT NULL,
                template \(text),
                status DOUBLE PRECISION,
                failed SMALLINT NOT NULL,
                duration_ms DOUBLE PRECISION,
                total_ms DOUBLE PRECISION,
                dns_ms DOUBLE PRECISION,
                connect_ms DOUBLE PRECISION,
                tls_ms DOUBLE PRECISION,
                request_ms DOUBLE PRECISION,
                ttfb_ms DOUBLE PRECISION,
                response_ms DOUBLE PRECISION,
                PRIMARY KEY (project_id, event_id)
            )
            """,
            "CREATE INDEX request_facts_time ON request_facts (project_id, occurred_at)",
            "CREATE INDEX request_facts_version ON request_facts (project_id, app_version, occurred_at)",
            "CREATE INDEX request_facts_os ON request_facts (project_id, os_version, occurred_at)",
            "CREATE INDEX request_facts_device ON request_facts (project_id, device_model, occurred_at)",
            "CREATE INDEX request_facts_page ON request_facts (project_id, page, occurred_at)",
            """
            CREATE INDEX apm_event_issue_counts ON apm_event
                (project_id, type, occurred_at, issue_id, session_id, app_version, os_version, device_model, page)
                WHERE issue_id IS NOT NULL
            """,
            "INSERT INTO request_facts (\(columns)) " + ServerStore.requestFactsSelect(d) + " WHERE type = 'network'",
        ]
    }

    /// Version 7: alerts. `alert_rules` holds each project's rules and the secret their webhook
    /// bodies are signed with; `alert_cooldowns` one row per rule and subject (`issue:ID`,
    /// `release:VERSION (BUILD)`) with when it last fired, claimed by an upsert so that one
    /// alert per window is enforced by the database whatever the number of servers;
    /// `alert_outbox` each alert with its rendered body until delivered (the deliverers claim due
    /// rows with a lease, so a server that dies mid-delivery leaves them to be retried);
    /// `alert_deliveries` one row per attempt, for the dashboard's delivery log. Text compares
    /// by bytes on PostgreSQL, as everywhere since version 3.
    private static func version7(_ d: SQLDialect) -> [String] {
        let text = d == .postgres ? "TEXT COLLATE \"C\"" : "TEXT"
        return [
            """
            CREATE TABLE alert_rules (
                id \(d.autoIncrementPrimaryKey),
                project_id BIGINT NOT NULL,
                name \(text) NOT NULL,
                kind \(text) NOT NULL,
                threshold DOUBLE PRECISION,
                min_sessions BIGINT,
                cooldown_seconds BIGINT NOT NULL,
                url \(text) NOT NULL,
                secret \(text) NOT NULL,
                enabled SMALLINT NOT NULL DEFAULT 1,
                created_at BIGINT NOT NULL,
                baseline_issue_id BIGINT NOT NULL DEFAULT 0
            )
            """,
            "CREATE INDEX alert_rules_project ON alert_rules (project_id, kind)",
            """
            CREATE TABLE alert_cooldowns (
                rule_id BIGINT NOT NULL,
                subject \(text) NOT NULL,
                fired_at BIGINT NOT NULL,
                PRIMARY KEY (rule_id, subject)
            )
            """,
            """
            CREATE TABLE alert_outbox (
                id \(text) PRIMARY KEY,
                rule_id BIGINT NOT NULL,
                project_id BIGINT NOT NULL,
                subject \(text) NOT NULL,
                summary \(text) NOT NULL,
                body \(text) NOT NULL,
                created_at BIGINT NOT NULL,
                state SMALLINT NOT NULL DEFAULT 0,
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at BIGINT NOT NULL,
                delivered_at BIGINT,
                last_error \(text)
            )
            """,
            "CREATE INDEX alert_outbox_due ON alert_outbox (next_attempt_at) WHERE state = 0",
            "CREATE INDEX alert_outbox_project ON alert_outbox (project_id, created_at)",
            """
            CREATE TABLE alert_deliveries (
                id \(d.autoIncrementPrimaryKey),
                alert_id \(text) NOT NULL,
                project_id BIGINT NOT NULL,
                rule_id BIGINT NOT NULL,
                attempt INTEGER NOT NULL,
                attempted_at BIGINT NOT NULL,
                status INTEGER,
                error \(text),
                duration_ms DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX alert_deliveries_project ON alert_deliveries (project_id, id)",
        ]
    }

    /// Version 6: the issue workflow and retention.
    ///
    /// `issues` gains its state (`status`: `open`, `resolved`, `ignored` or `regressed`, with
    /// what it was resolved in or ignored until, and the version it regressed in) and
    /// `upsert_new`, 1 only in the statement that inserted the row, so the processing upsert
    /// tells a new issue from an existing one without a race. `issue_audit` records who changed
    /// an issue's state and when. Retention keeps what it pruned from an issue in
    /// `issue_pruned` (per app version) and marks the pruned events' sessions in `issue_users`,
    /// so recounting an issue from its remaining events still counts them.
    private static func version6(_ d: SQLDialect) -> [String] {
        let text = d == .postgres ? "TEXT COLLATE \"C\"" : "TEXT"
        return [
            "ALTER TABLE issues ADD COLUMN status \(text) NOT NULL DEFAULT 'open'",
            "ALTER TABLE issues ADD COLUMN resolution \(text)",
            "ALTER TABLE issues ADD COLUMN resolved_in \(text)",
            "ALTER TABLE issues ADD COLUMN resolved_at BIGINT",
            "ALTER TABLE issues ADD COLUMN ignore_until_events BIGINT",
            "ALTER TABLE issues ADD COLUMN ignore_until BIGINT",
            "ALTER TABLE issues ADD COLUMN regressed_version \(text)",
            "ALTER TABLE issues ADD COLUMN regressed_at BIGINT",
            "ALTER TABLE issues ADD COLUMN upsert_new SMALLINT NOT NULL DEFAULT 0",
            """
            CREATE TABLE issue_audit (
                id \(d.autoIncrementPrimaryKey),
                project_id BIGINT NOT NULL,
                issue_id BIGINT NOT NULL,
                at BIGINT NOT NULL,
                actor \(text) NOT NULL,
                action \(text) NOT NULL,
                detail \(text)
            )
            """,
            "CREATE INDEX issue_audit_issue ON issue_audit (issue_id, at)",
            """
            CREATE TABLE issue_pruned (
                issue_id BIGINT NOT NULL,
                app_version \(text) NOT NULL,
                event_count BIGINT NOT NULL,
                first_seen BIGINT NOT NULL,
                last_seen BIGINT NOT NULL,
                PRIMARY KEY (issue_id, app_version)
            )
            """,
            "ALTER TABLE issue_users ADD COLUMN pruned SMALLINT NOT NULL DEFAULT 0",
        ]
    }

    /// Version 8: dashboard filters by OS version, device model and (where the roll-up's
    /// dimension is not the page) page read `apm_event` itself (the roll-ups are kept by metric,
    /// dimension, app version and day only); these indexes let such a view read only the
    /// matching events of one type in a time range, and list the values seen (a few index seeks
    /// per distinct value). Cost: three index entries per stored event.
    private static let version8 = [
        "CREATE INDEX IF NOT EXISTS apm_event_os ON apm_event (project_id, os_version, type, occurred_at)",
        "CREATE INDEX IF NOT EXISTS apm_event_device ON apm_event (project_id, device_model, type, occurred_at)",
        "CREATE INDEX IF NOT EXISTS apm_event_page ON apm_event (project_id, page, type, occurred_at)",
    ]

    /// Version 5: release health. `apm_event.user_key` is who an event counts as for distinct
    /// users (its user id, else its install id); `rollup_sketches` holds one row per touched
    /// register of a distinct-count sketch (``HyperLogLog``), upserted with the higher rank, so
    /// sketches from several servers and days merge in SQL.
    private static func version5(_ d: SQLDialect) -> [String] {
        [
            "ALTER TABLE apm_event ADD COLUMN user_key TEXT" + (d == .postgres ? " COLLATE \"C\"" : ""),
            """
            CREATE TABLE rollup_sketches (
                project_id BIGINT NOT NULL,
                metric TEXT\(d == .postgres ? " COLLATE \"C\"" : "") NOT NULL,
                dimension TEXT\(d == .postgres ? " COLLATE \"C\"" : "") NOT NULL,
                app_version TEXT\(d == .postgres ? " COLLATE \"C\"" : "") NOT NULL,
                day BIGINT NOT NULL,
                register INTEGER NOT NULL,
                rank SMALLINT NOT NULL,
                PRIMARY KEY (project_id, metric, dimension, app_version, day, register)
            )
            """,
        ]
    }

    /// Version 4: `event_counts`, the number of events per project and state, kept by every
    /// transaction that stores events or changes their state (``EventCountDelta``), so that
    /// `/metrics` and the dashboard read a few rows instead of counting `apm_event`. Filled
    /// here once from the events already stored (the only scan it costs).
    private static let version4 = [
        """
        CREATE TABLE event_counts (
            project_id BIGINT NOT NULL,
            slot INTEGER NOT NULL,
            state SMALLINT NOT NULL,
            n BIGINT NOT NULL,
            PRIMARY KEY (project_id, slot, state)
        )
        """,
        "INSERT INTO event_counts (project_id, slot, state, n) SELECT project_id, 0, state, COUNT(*) FROM apm_event GROUP BY project_id, state",
    ]

    /// Version 3 (PostgreSQL; nothing to do on SQLite): every text column compares by bytes,
    /// collation `"C"`, as SQLite's default `BINARY` collation does, so both stores sort alike;
    /// and JSON columns large enough to be compressed use lz4 where the server has it.
    ///
    /// Why: the keys of every index and upsert here are identifiers (event ids, fingerprints,
    /// metric and dimension names, versions), and comparing them through the database's locale
    /// (`strcoll`) made a fifth of PostgreSQL's CPU time at ingest; `pglz` compressing payloads
    /// made another tenth. Changing a column's collation keeps its rows and rebuilds its indexes.
    private static func version3(_ d: SQLDialect) -> [String] {
        guard d == .postgres else { return [] }
        return [
            #"""
            DO $$
            DECLARE c record;
            BEGIN
                FOR c IN SELECT t.relname AS tab, a.attname AS col FROM pg_attribute a
                         JOIN pg_class t ON t.oid = a.attrelid
                         WHERE t.relnamespace = current_schema()::regnamespace AND t.relkind = 'r'
                           AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid = 'text'::regtype
                LOOP
                    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE text COLLATE "C"', c.tab, c.col);
                    IF c.col LIKE '%\_json' THEN
                        BEGIN
                            EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET COMPRESSION lz4', c.tab, c.col);
                        EXCEPTION WHEN feature_not_supported THEN
                            NULL; -- a server built without lz4 keeps pglz
                        END;
                    END IF;
                END LOOP;
            END
            $$
            """#,
        ]
    }

    /// Version 2: only events grouped into an issue are in `apm_event_issue` (every query of it
    /// names an issue id, which implies NOT NULL), so the events without one — most of them —
    /// cost no index entry at insert.
    private static let version2 = [
        "DROP INDEX apm_event_issue",
        "CREATE INDEX apm_event_issue ON apm_event (issue_id, occurred_at) WHERE issue_id IS NOT NULL",
    ]

    private static func version1(_ d: SQLDialect) -> [String] {
        [
            """
            CREATE TABLE projects (
                id \(d.autoIncrementPrimaryKey),
                name TEXT NOT NULL UNIQUE,
                ingest_key_hash TEXT NOT NULL UNIQUE,
                created_at BIGINT NOT NULL
            )
            """,
            // One row per event, whatever its type. `state`: 0 waiting for processing,
            // 1 processed, 2 waiting for re-processing after symbols arrived (no new rollups).
            """
            CREATE TABLE apm_event (
                project_id BIGINT NOT NULL,
                id TEXT NOT NULL,
                type TEXT NOT NULL,
                received_at BIGINT NOT NULL,
                occurred_at BIGINT NOT NULL,
                app_id TEXT NOT NULL,
                app_version TEXT NOT NULL,
                app_build TEXT NOT NULL,
                os TEXT NOT NULL,
                os_version TEXT NOT NULL,
                device_model TEXT NOT NULL,
                page TEXT,
                session_id TEXT NOT NULL,
                duration_ms DOUBLE PRECISION,
                fingerprint TEXT,
                issue_id BIGINT,
                tags_json TEXT NOT NULL,
                payload_json TEXT NOT NULL,
                images_json TEXT,
                context_json TEXT,
                frames_json TEXT,
                state SMALLINT NOT NULL DEFAULT 0,
                processed_at BIGINT,
                PRIMARY KEY (project_id, id)
            )
            """,
            "CREATE INDEX apm_event_pending ON apm_event (received_at) WHERE state <> 1",
            "CREATE INDEX apm_event_issue ON apm_event (issue_id, occurred_at)",
            "CREATE INDEX apm_event_type ON apm_event (project_id, type, occurred_at)",
            """
            CREATE TABLE issues (
                id \(d.autoIncrementPrimaryKey),
                project_id BIGINT NOT NULL,
                kind TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                title TEXT NOT NULL,
                subtitle TEXT,
                frames_json TEXT,
                classification_json TEXT,
                symbolicated SMALLINT NOT NULL DEFAULT 0,
                event_count BIGINT NOT NULL DEFAULT 0,
                user_count BIGINT NOT NULL DEFAULT 0,
                first_seen BIGINT NOT NULL,
                last_seen BIGINT NOT NULL,
                last_event_id TEXT,
                UNIQUE (project_id, fingerprint)
            )
            """,
            "CREATE TABLE issue_users (issue_id BIGINT NOT NULL, user_key TEXT NOT NULL, PRIMARY KEY (issue_id, user_key))",
            """
            CREATE TABLE issue_versions (
                issue_id BIGINT NOT NULL,
                app_version TEXT NOT NULL,
                event_count BIGINT NOT NULL,
                first_seen BIGINT NOT NULL,
                last_seen BIGINT NOT NULL,
                PRIMARY KEY (issue_id, app_version)
            )
            """,
            """
            CREATE TABLE symbol_files (
                id \(d.autoIncrementPrimaryKey),
                project_id BIGINT NOT NULL,
                debug_id TEXT NOT NULL,
                arch TEXT NOT NULL,
                kind TEXT NOT NULL,
                name TEXT NOT NULL,
                file_size BIGINT NOT NULL,
                uploaded_at BIGINT NOT NULL,
                symcache \(d.blob),
                UNIQUE (project_id, debug_id, arch)
            )
            """,
            """
            CREATE TABLE missing_symbols (
                project_id BIGINT NOT NULL,
                debug_id TEXT NOT NULL,
                arch TEXT NOT NULL,
                image_name TEXT NOT NULL,
                event_count BIGINT NOT NULL,
                first_seen BIGINT NOT NULL,
                last_seen BIGINT NOT NULL,
                PRIMARY KEY (project_id, debug_id)
            )
            """,
            """
            CREATE TABLE event_missing_symbols (
                project_id BIGINT NOT NULL,
                debug_id TEXT NOT NULL,
                event_id TEXT NOT NULL,
                PRIMARY KEY (project_id, debug_id, event_id)
            )
            """,
            """
            CREATE TABLE remote_config (
                project_id BIGINT PRIMARY KEY,
                document TEXT NOT NULL,
                etag TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            "CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
            // Roll-ups: per metric, dimension (page, URL template, launch kind…), app version
            // and UTC day, a count and a total; and log-bucketed histograms for percentiles.
            """
            CREATE TABLE rollup_sums (
                project_id BIGINT NOT NULL,
                metric TEXT NOT NULL,
                dimension TEXT NOT NULL,
                app_version TEXT NOT NULL,
                day BIGINT NOT NULL,
                count BIGINT NOT NULL,
                total DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (project_id, metric, dimension, app_version, day)
            )
            """,
            """
            CREATE TABLE rollup_histograms (
                project_id BIGINT NOT NULL,
                metric TEXT NOT NULL,
                dimension TEXT NOT NULL,
                app_version TEXT NOT NULL,
                day BIGINT NOT NULL,
                bucket INTEGER NOT NULL,
                count BIGINT NOT NULL,
                PRIMARY KEY (project_id, metric, dimension, app_version, day, bucket)
            )
            """,
        ]
    }
}
