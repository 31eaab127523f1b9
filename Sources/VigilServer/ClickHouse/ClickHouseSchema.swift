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
///
/// Avoided for 18.16: the `LowCardinality` and `DateTime64` types, `Nested` columns (plain
/// arrays instead), query parameters (`{name:Type}`; values are escaped literals instead),
/// `ON CLUSTER` DDL (it needs ZooKeeper; each shard node gets its own `CREATE`), `toDate` of a
/// number (days in old releases, seconds in new ones: `toDateTime` of seconds instead), and
/// settings in `CREATE … SETTINGS` other than `index_granularity`.
enum ClickHouseSchema {
    /// The version these statements create.
    static let version = 1

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
        ("sketch_register", "Array(UInt16)"), ("sketch_rank", "Array(UInt8)"), ("batch_id", "UInt64"),
    ]

    private static var columnList: String {
        columns.map { "    \($0.name) \($0.type)" }.joined(separator: ",\n")
    }

    /// The shard-local table. `engine` is `MergeTree()` or, with replicas, e.g.
    /// `ReplicatedMergeTree('/clickhouse/tables/{shard}/vigil/apm_event', '{replica}')`.
    static func localTable(database: String, engine: String = "MergeTree()") -> String {
        """
        CREATE TABLE IF NOT EXISTS \(database).apm_event_local (
        \(columnList)
        ) ENGINE = \(engine)
        PARTITION BY toYYYYMM(toDateTime(intDiv(occurred_at, 1000)))
        ORDER BY (project_id, type, occurred_at)
        SETTINGS index_granularity = 8192
        """
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
