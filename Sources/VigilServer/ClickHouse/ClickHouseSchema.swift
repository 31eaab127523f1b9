/// The event tables on ClickHouse, in SQL that ClickHouse 18.16 (Debian 12's) and current
/// releases both accept.
///
/// - `apm_event_local`, on every shard: a `MergeTree` partitioned by month of `occurred_at` and
///   ordered by `(project_id, type, occurred_at)`, so a dashboard query reads only its project's
///   rows of the types it needs. Beside the wide event columns, each row carries what the event
///   adds to the roll-ups — `(metric, dimension, count, total)` sums, histogram observations as
///   log buckets (``LogHistogram``), and distinct-count sketch registers — as parallel arrays,
///   computed by the same analysis as on SQLite/PostgreSQL; a roll-up is a `GROUP BY` over an
///   `ARRAY JOIN`, so the figures equal the roll-up tables' exactly. `batch_id` names the spool
///   batch that wrote the row (exactly-once delivery, see ``ClickHouseEventSink``).
/// - `apm_event`, on the entry node: a `Distributed` table over the cluster, for reading.
/// - The roll-ups (version 2), on every shard: `apm_rollup_sums_local` and
///   `apm_rollup_histograms_local` (`SummingMergeTree`), `apm_rollup_sketches_local`
///   (`AggregatingMergeTree` of `maxState` per HyperLogLog register), each filled by a
///   materialized view (`…_mv TO …`) from every block inserted into the shard's
///   `apm_event_local`, grouped per block; on the entry node a `Distributed` table over each.
///   Ordered by `(project_id, metric, app_version, day, dimension…)`, the keys the roll-up
///   filters use. Readers always re-aggregate (`sum`, `maxMerge` with `GROUP BY`): merges
///   collapse rows only eventually, and an answer must not depend on whether they ran.
///   `vigil_schema_version` on each shard records what it was brought to; moving a shard from
///   version 1 to 2 backfills its roll-ups from the rows it already holds (``rollupBackfill(database:)``).
/// - The facet roll-ups (version 3), on every shard: `apm_facet_sums_local` and
///   `apm_facet_histograms_local`, the same sums and histograms kept once more per OS version,
///   per device model and per page of the event (`facet` `'os'`, `'device'` or `'page'`, and
///   `facet_value`), ordered by `(project_id, facet, facet_value, metric, app_version, day,
///   dimension…)`, so a dashboard filter on one of them reads a sort-key range instead of the
///   event rows. One view per table unfolds each row into its (at most) three facets with
///   `arrayJoin`; an event without a page adds no `'page'` row. Moving a shard to version 3
///   fills them from the rows it holds (``facetBackfill(database:)``). No sketches: release
///   health is not narrowed by these filters.
/// - The request rows (version 3), on every shard: `apm_request_local`, one narrow row per
///   `network` event (times, version, OS, device, page, the template, total time and its
///   histogram bucket, failed, each phase's presence and time), filled by a view from the event
///   rows' own contributions, so the requests page reads it without unfolding the wide rows'
///   arrays where it must read events (``requestTable(database:reading:)``).
/// - The contributions (version 4), on every shard: `apm_contrib_local`, a `Null` table (it
///   keeps nothing) with only the columns the views above read — the facets, times and the
///   contribution arrays — filled by one view from `apm_event_local`; every roll-up, facet and
///   request view reads its rows instead of the event table's, through the link the node
///   follows from one view to the next (``ClickHouseCascade``). ClickHouse 18.16 hands a view
///   the whole inserted block, and an `ARRAY JOIN` or `arrayJoin` there copies every column of
///   it once per array element, the event JSON included (on 20,000 events with 1.2 kB of JSON
///   each: a facet view 880 ms of CPU and a plain roll-up view about 700 ms over the insert
///   itself; both together about 180 ms through the contributions). Moving a shard from
///   version 3 replaces its six views; the roll-up rows they wrote stay.
/// - Issue membership (version 5): `fingerprint`, the issue an event row's event was grouped
///   into when it was processed at ingest (empty for other rows), and *link rows*: rows of type
///   `issue_link` or `issue_unlink` (no event has those types) carrying an event's id, time,
///   release, OS, device, page and session, a fingerprint, and no contributions (so no view
///   counts them). The workers write them when they first process an event stored waiting
///   (a link) and when re-processing moves an event from one issue to another (an unlink and a
///   link). An event's issues within a filter are the fingerprints whose rows for it — its own
///   row and its link rows — add up to more than zero (``ClickHouseEventStore/issueCounts``),
///   so the issue list under a filter is counted here instead of from `--db`'s issue events.
///   Moving a shard to version 5 adds the column (empty on the rows it holds) and writes a link
///   row for every issue event `--db` holds (``ClickHouseCluster/createSchema(issueLinks:)``).
///
/// - Replication (`replicated=1` in the `--events` URL): every table above that keeps rows —
///   the event table, the roll-ups, the facet roll-ups and the request rows — is created as
///   `ReplicatedMergeTree`, `ReplicatedSummingMergeTree` or `ReplicatedAggregatingMergeTree`
///   (``engine(_:database:table:replicated:)``), on every replica of every shard; the
///   contributions stay a `Null` table and the views are created on each replica too. A view
///   runs on the replica that took the insert, and its target table carries the rows it wrote
///   to the other replicas.
///
/// Avoided for 18.16: the `LowCardinality` and `DateTime64` types, `Nested` columns (plain
/// arrays instead), query parameters (`{name:Type}`; values are escaped literals instead),
/// `ON CLUSTER` DDL (it needs ZooKeeper; each shard node gets its own `CREATE`), `toDate` of a
/// number (days in old releases, seconds in new ones: `toDateTime` of seconds instead), and
/// settings in `CREATE … SETTINGS` other than `index_granularity`.
enum ClickHouseSchema {
    /// The version these statements create.
    static let version = 5

    /// The columns, in order, shared by the local and the distributed table.
    static let columns: [(name: String, type: String)] = [
        ("project_id", "Int64"), ("type", "String"), ("occurred_at", "Int64"), ("id", "String"), ("received_at", "Int64"),
        ("day", "Int64"), ("app_id", "String"), ("app_version", "String"), ("app_build", "String"), ("os", "String"),
        ("os_version", "String"), ("device_model", "String"), ("page", "Nullable(String)"), ("session_id", "String"),
        ("duration_ms", "Nullable(Float64)"), ("user_key", "Nullable(String)"), ("tags_json", "String"),
        ("payload_json", "String"), ("images_json", "Nullable(String)"), ("context_json", "Nullable(String)"),
        ("sum_metric", "Array(String)"), ("sum_dimension", "Array(String)"), ("sum_count", "Array(Int64)"),
        ("sum_total", "Array(Float64)"), ("obs_metric", "Array(String)"), ("obs_dimension", "Array(String)"),
        ("obs_bucket", "Array(Int32)"), ("sketch_metric", "Array(String)"), ("sketch_dimension", "Array(String)"),
        ("sketch_register", "Array(UInt16)"), ("sketch_rank", "Array(UInt8)"), ("fingerprint", "String"), ("batch_id", "UInt64"),
    ]

    /// The type of a row that adds an event to an issue (the fingerprint's) after the event's
    /// own row was written (version 5): processing by the workers, re-processing after symbols.
    static let issueLinkType = "issue_link"
    /// The type of a row that takes an event out of an issue its rows put it in (version 5).
    static let issueUnlinkType = "issue_unlink"
    /// Both link-row types as an SQL list, `('issue_link', 'issue_unlink')`, for `type IN …`.
    static let issueLinkTypeList = "(\(ClickHouseNode.literal(issueLinkType)), \(ClickHouseNode.literal(issueUnlinkType)))"

    private static var columnList: String {
        columns.map { "    \($0.name) \($0.type)" }.joined(separator: ",\n")
    }

    /// The columns of ``columns`` that the roll-up, facet and request views read, in order: what
    /// `apm_contrib_local` carries.
    static let contributionColumns: [(name: String, type: String)] = columns.filter {
        ["project_id", "type", "occurred_at", "day", "app_version", "os_version", "device_model", "page"].contains($0.name)
            || $0.name.hasPrefix("sum_") || $0.name.hasPrefix("obs_") || $0.name.hasPrefix("sketch_")
    }

    /// The contributions table on a shard node (version 4 on).
    static func contributions(database: String) -> String { "\(database).apm_contrib_local" }

    /// What the roll-up, facet and request views select `FROM` on a node that passes view
    /// output on as `cascade` says: the contributions' view (18.16), their table (current
    /// releases) or, on a node that does neither, the event table.
    static func viewSource(database: String, cascade: ClickHouseCascade) -> String {
        switch cascade {
        case .fromView: "\(database).apm_contrib_mv"
        case .fromTarget: contributions(database: database)
        case .none: eventTable(database: database)
        }
    }

    /// The shard's event table, which the backfills read.
    static func eventTable(database: String) -> String { "\(database).apm_event_local" }

    /// The statements that create `apm_contrib_local` (a `Null` table: blocks pass through it
    /// to its views and are not kept) and the view that fills it from `apm_event_local`, on one
    /// shard node. Idempotent.
    static func contributionTable(database: String) -> [String] {
        let names = contributionColumns.map(\.name).joined(separator: ", ")
        return [
            "CREATE TABLE IF NOT EXISTS \(contributions(database: database)) ("
                + contributionColumns.map { "\($0.name) \($0.type)" }.joined(separator: ", ") + ") ENGINE = Null",
            "CREATE MATERIALIZED VIEW IF NOT EXISTS \(database).apm_contrib_mv TO \(contributions(database: database)) AS "
                + "SELECT \(names) FROM \(eventTable(database: database))",
        ]
    }

    /// The materialized views that read the contributions (version 4) or, before, the event
    /// table: the ones a shard moving from version 3 or older replaces.
    static let contributionViews = ["apm_rollup_sums_mv", "apm_rollup_histograms_mv", "apm_rollup_sketches_mv", "apm_facet_sums_mv",
                                    "apm_facet_histograms_mv", "apm_request_mv"]

    /// The engine of a table that keeps rows: `family()` (`MergeTree`, `SummingMergeTree`,
    /// `AggregatingMergeTree`) or, `replicated`, `Replicated` + family over ZooKeeper path
    /// `/clickhouse/tables/{shard}/DATABASE/TABLE` as replica `{replica}` (the macros of each
    /// node's configuration; ClickHouse refuses the `CREATE`, naming the macro, on a node
    /// without them).
    static func engine(_ family: String, database: String, table: String, replicated: Bool) -> String {
        replicated ? "Replicated\(family)('/clickhouse/tables/{shard}/\(database)/\(table)', '{replica}')" : "\(family)()"
    }

    /// The shard-local table, replicated or not (``engine(_:database:table:replicated:)``).
    static func localTable(database: String, replicated: Bool = false) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(database).apm_event_local (
        \(columnList)
        ) ENGINE = \(engine("MergeTree", database: database, table: "apm_event_local", replicated: replicated))
        PARTITION BY toYYYYMM(toDateTime(intDiv(occurred_at, 1000)))
        ORDER BY (project_id, type, occurred_at)
        SETTINGS index_granularity = 8192
        """
    }

    /// The roll-up tables as (name, columns, engine family, order key, the SELECT over `source`: the
    /// shard's contributions for the view, its event table for a backfill). The views group
    /// each inserted block, so a block of N events adds one row per (project, metric, version,
    /// day, dimension) it touches, not N.
    static func rollups(database: String, reading source: String) -> [(name: String, columns: String, engine: String, order: String,
                                                                         select: String)] {
        return [
            ("apm_rollup_sums",
             "project_id Int64, metric String, app_version String, day Int64, dimension String, event_count Int64, total Float64",
             "SummingMergeTree", "project_id, metric, app_version, day, dimension",
             """
             SELECT project_id, metric, app_version, day, dimension, sum(c) AS event_count, sum(t) AS total FROM \(source)
             ARRAY JOIN sum_metric AS metric, sum_dimension AS dimension, sum_count AS c, sum_total AS t
             GROUP BY project_id, metric, app_version, day, dimension
             """),
            ("apm_rollup_histograms",
             "project_id Int64, metric String, app_version String, day Int64, dimension String, bucket Int32, observations Int64",
             "SummingMergeTree", "project_id, metric, app_version, day, dimension, bucket",
             """
             SELECT project_id, metric, app_version, day, dimension, bucket, toInt64(count()) AS observations FROM \(source)
             ARRAY JOIN obs_metric AS metric, obs_dimension AS dimension, obs_bucket AS bucket
             GROUP BY project_id, metric, app_version, day, dimension, bucket
             """),
            ("apm_rollup_sketches",
             "project_id Int64, metric String, app_version String, day Int64, dimension String, register UInt16, "
                + "rank AggregateFunction(max, UInt8)",
             "AggregatingMergeTree", "project_id, metric, app_version, day, dimension, register",
             """
             SELECT project_id, metric, app_version, day, dimension, sk_register AS register, maxState(sk_rank) AS rank
             FROM \(source)
             ARRAY JOIN sketch_metric AS metric, sketch_dimension AS dimension, sketch_register AS sk_register, sketch_rank AS sk_rank
             GROUP BY project_id, metric, app_version, day, dimension, register
             """),
        ]
    }

    /// The facets an event row is kept under in the facet roll-ups, as `(facet, value)` pairs
    /// for `arrayJoin`; a row without a page gets an empty facet name there, filtered out.
    static let facetPairs = "arrayJoin(arrayFilter(pair -> pair.1 != '', [('os', os_version), ('device', device_model), "
        + "(if(isNull(page), '', 'page'), ifNull(page, ''))]))"

    /// The facet roll-up tables (version 3) in the form of ``rollups(database:reading:)``: the
    /// sums and histograms once per facet of each row (OS version, device model, page).
    static func facetRollups(database: String, reading source: String) -> [(name: String, columns: String, engine: String, order: String,
                                                                              select: String)] {
        return [
            ("apm_facet_sums",
             "project_id Int64, facet String, facet_value String, metric String, app_version String, day Int64, dimension String, "
                + "event_count Int64, total Float64",
             "SummingMergeTree", "project_id, facet, facet_value, metric, app_version, day, dimension",
             """
             SELECT project_id, facet_pair.1 AS facet, facet_pair.2 AS facet_value, metric, app_version, day, dimension,
                    sum(c) AS event_count, sum(t) AS total FROM \(source)
             ARRAY JOIN sum_metric AS metric, sum_dimension AS dimension, sum_count AS c, sum_total AS t
             GROUP BY project_id, \(facetPairs) AS facet_pair, metric, app_version, day, dimension
             """),
            ("apm_facet_histograms",
             "project_id Int64, facet String, facet_value String, metric String, app_version String, day Int64, dimension String, "
                + "bucket Int32, observations Int64",
             "SummingMergeTree", "project_id, facet, facet_value, metric, app_version, day, dimension, bucket",
             """
             SELECT project_id, facet_pair.1 AS facet, facet_pair.2 AS facet_value, metric, app_version, day, dimension, bucket,
                    toInt64(count()) AS observations FROM \(source)
             ARRAY JOIN obs_metric AS metric, obs_dimension AS dimension, obs_bucket AS bucket
             GROUP BY project_id, \(facetPairs) AS facet_pair, metric, app_version, day, dimension, bucket
             """),
        ]
    }

    /// The phases of a request, as the `network.<phase>` roll-up metrics name them.
    static let requestPhases = ["dns", "connect", "tls", "request", "ttfb", "response"]

    /// The SELECT over `source` (the contributions for the view, the event table for a
    /// backfill) that makes one `apm_request_local` row per `network` event that adds to the
    /// roll-ups: each figure is the row's own contribution (`arr[indexOf(…)]`, the default 0
    /// where the metric is absent).
    static func requestSelect(reading source: String) -> String {
        func sumOf(_ metric: String, _ array: String = "sum_total") -> String { "\(array)[indexOf(sum_metric, '\(metric)')]" }
        let phases = requestPhases.map { "toUInt8(has(sum_metric, 'network.\($0)')) AS \($0)_count, \(sumOf("network.\($0)")) AS \($0)_ms" }
        return """
            SELECT project_id, occurred_at, day, app_version, os_version, device_model, page,
                   \(sumOf("network", "sum_dimension")) AS template, \(sumOf("network")) AS total_ms,
                   obs_bucket[indexOf(obs_metric, 'network.total')] AS total_bucket,
                   toUInt8(has(sum_metric, 'network.errors')) AS failed, \(phases.joined(separator: ", "))
            FROM \(source) WHERE type = 'network' AND has(sum_metric, 'network')
            """
    }

    /// The columns of `apm_request_local` (and its `Distributed` table `apm_request`).
    static var requestColumns: String {
        "project_id Int64, occurred_at Int64, day Int64, app_version String, os_version String, device_model String, "
            + "page Nullable(String), template String, total_ms Float64, total_bucket Int32, failed UInt8, "
            + requestPhases.map { "\($0)_count UInt8, \($0)_ms Float64" }.joined(separator: ", ")
    }

    /// The statements that create `apm_request_local` and its view over `source`
    /// (``viewSource(database:cascade:)``) on one shard node: a `MergeTree` (replicated or not) by
    /// month, ordered by `(project_id, occurred_at)`. Idempotent.
    static func requestTable(database: String, reading source: String, replicated: Bool = false) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(database).apm_request_local (\(requestColumns))
            ENGINE = \(engine("MergeTree", database: database, table: "apm_request_local", replicated: replicated))
            PARTITION BY toYYYYMM(toDateTime(intDiv(occurred_at, 1000)))
            ORDER BY (project_id, occurred_at)
            SETTINGS index_granularity = 8192
            """,
            "CREATE MATERIALIZED VIEW IF NOT EXISTS \(database).apm_request_mv TO \(database).apm_request_local AS "
                + requestSelect(reading: source),
        ]
    }

    /// The statement that fills one shard's `apm_request_local` from the events it holds, run
    /// once by the migration to version 3.
    static func requestBackfill(database: String) -> String {
        "INSERT INTO \(database).apm_request_local \(requestSelect(reading: eventTable(database: database)))"
    }

    /// The `Distributed` table over `apm_request_local`, on the entry node.
    static func requestDistributedTable(database: String, cluster: String) -> String {
        "CREATE TABLE IF NOT EXISTS \(database).apm_request (\(requestColumns)) "
            + "ENGINE = Distributed(\(cluster), \(database), apm_request_local, rand())"
    }

    /// The statements that create the roll-up and facet roll-up tables and their views over
    /// `source` (``viewSource(database:cascade:)``) on one shard node, in order (a target table
    /// before its view), the tables replicated or not. Idempotent.
    static func rollupTables(database: String, reading source: String, replicated: Bool = false) -> [String] {
         (rollups(database: database, reading: source) + facetRollups(database: database, reading: source)).flatMap { rollup in
            [
                """
                CREATE TABLE IF NOT EXISTS \(database).\(rollup.name)_local (\(rollup.columns))
                ENGINE = \(engine(rollup.engine, database: database, table: rollup.name + "_local", replicated: replicated))
                PARTITION BY toYYYYMM(toDateTime(day * 86400))
                ORDER BY (\(rollup.order))
                SETTINGS index_granularity = 8192
                """,
                "CREATE MATERIALIZED VIEW IF NOT EXISTS \(database).\(rollup.name)_mv TO \(database).\(rollup.name)_local AS \(rollup.select)",
            ]
        }
    }

    /// The statements that fill one shard's roll-up tables from the events it already holds:
    /// the views' own SELECTs, run once by the migration from version 1.
    static func rollupBackfill(database: String) -> [String] {
        rollups(database: database, reading: eventTable(database: database)).map { "INSERT INTO \(database).\($0.name)_local \($0.select)" }
    }

    /// The statements that fill one shard's facet roll-up tables from the events it already
    /// holds: the views' own SELECTs, run once by the migration to version 3.
    static func facetBackfill(database: String) -> [String] {
        facetRollups(database: database, reading: eventTable(database: database)).map {
            "INSERT INTO \(database).\($0.name)_local \($0.select)"
        }
    }

    /// The `Distributed` tables over the roll-ups and facet roll-ups, on the entry node.
    static func rollupDistributedTables(database: String, cluster: String) -> [String] {
        let source = eventTable(database: database)
        return (rollups(database: database, reading: source) + facetRollups(database: database, reading: source)).map {
            "CREATE TABLE IF NOT EXISTS \(database).\($0.name) (\($0.columns)) "
                + "ENGINE = Distributed(\(cluster), \(database), \($0.name)_local, rand())"
        }
    }

    /// The table on each shard node recording the schema versions the shard was brought to.
    static func versionTable(database: String) -> String {
        "CREATE TABLE IF NOT EXISTS \(database).vigil_schema_version (version UInt32) ENGINE = TinyLog"
    }

    /// The `Distributed` table over `cluster` on the entry node. Its sharding key matters only
    /// to inserts made through it; Vigil writes to the shards' local tables itself.
    static func distributedTable(database: String, cluster: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(database).apm_event (
        \(columnList)
        ) ENGINE = Distributed(\(cluster), \(database), apm_event_local, rand())
        """
    }
}
