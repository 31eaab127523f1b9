import Foundation

/// The ClickHouse cluster Vigil keeps events in: the entry node (reads through the
/// `Distributed` table), one writable node per shard (inserts into its local table) and, with
/// `replicated=1`, each shard's other replicas (tables only).
///
/// Threading: immutable; safe to share. Every call is a blocking HTTP request.
public final class ClickHouseCluster: Sendable {
    /// Where it was told to connect.
    public let location: ClickHouseLocation
    /// The node reads go to.
    public let entry: ClickHouseNode
    /// One node per shard, in the cluster's shard order: the replica rows are written to.
    public let shards: [ClickHouseNode]
    /// Each shard's other replicas, with `replicated=1`: they get the tables (rows reach them
    /// by ClickHouse's replication) and serve the `Distributed` tables' reads when the first
    /// replica is down.
    public let followers: [[ClickHouseNode]]

    /// The database-qualified local table.
    public var localTable: String { "\(location.database).apm_event_local" }
    /// The database-qualified `Distributed` table.
    public var distributedTable: String { "\(location.database).apm_event" }
    /// The database-qualified `Distributed` table over a roll-up (`apm_rollup_sums`,
    /// `apm_rollup_histograms`, `apm_rollup_sketches`, `apm_facet_sums`, `apm_facet_histograms`).
    func rollupTable(_ name: String) -> String { "\(location.database).\(name)" }

    /// Connects to the entry node and finds the cluster's shards and replicas in
    /// `system.clusters` (or takes them from `nodes=`).
    ///
    /// Throws ``ClickHouseError/cluster(_:)`` when the entry node does not know the cluster, or
    /// `nodes=` lists a different number of shards than the cluster has.
    public init(_ location: ClickHouseLocation, timeout: Double = 30) throws {
        self.location = location
        entry = ClickHouseNode(host: location.host, port: location.port, user: location.user, password: location.password,
                               timeout: timeout)
        let rows = try entry.rows("""
            SELECT shard_num, host_name FROM system.clusters
            WHERE cluster = \(ClickHouseNode.literal(location.cluster)) ORDER BY shard_num, replica_num
            """)
        var hosts: [[String]] = []
        var lastShard: String??
        for row in rows {
            if lastShard != row[0] { hosts.append([]) }
            lastShard = row[0]
            hosts[hosts.count - 1].append(row[1] ?? location.host)
        }
        guard !hosts.isEmpty else {
            throw ClickHouseError.cluster("the node at \(location.host):\(location.port) has no cluster \"\(location.cluster)\" "
                + "in its remote_servers")
        }
        func node(_ host: String, _ port: UInt16) -> ClickHouseNode {
            ClickHouseNode(host: host, port: port, user: location.user, password: location.password, timeout: timeout)
        }
        let replicas: [[ClickHouseNode]]
        if let nodes = location.replicaNodes {
            guard nodes.count == hosts.count else {
                throw ClickHouseError.cluster("nodes= lists \(nodes.count) shards but cluster \"\(location.cluster)\" has \(hosts.count)")
            }
            replicas = nodes.map { $0.map { node($0.host, $0.port) } }
        } else {
            replicas = hosts.map { $0.map { node($0, location.port) } }
        }
        shards = replicas.map { $0[0] }
        followers = replicas.map { location.replicated ? Array($0.dropFirst()) : [] }
    }

    /// Creates the database and the tables where missing, and brings each shard to
    /// ``ClickHouseSchema/version``: the event table, the contributions and the roll-ups with
    /// their materialized views on every shard node, the `Distributed` tables on the entry
    /// node. A shard that held events before it had the roll-ups (version 1) or the facet
    /// roll-ups and request rows (versions 1 and 2) gets them filled from those rows, once; a
    /// shard whose views read the event table (versions 1 to 3) gets them replaced by views over
    /// the contributions.
    ///
    /// Several servers may start at once on a new cluster (every `CREATE` is `IF NOT EXISTS`).
    /// The upgrades are not safe against another writer: between creating a view and the fill,
    /// rows inserted by another server would be counted twice, and between dropping a view and
    /// creating it again they would not be counted, so a cluster written by an older server is
    /// upgraded by starting one server first (docs/server.md).
    ///
    /// A shard moving to version 5 that held events gets the `fingerprint` column (empty on
    /// its rows) and, from `issueLinks` (asked at most once: the main database's issue events
    /// as link rows, ``ServerStore/issueLinkRows()``), a link row for each of its events in an
    /// issue, inserted in blocks of ``backfillBlockRows`` under fixed batch ids, so that a start
    /// interrupted half-way sends only the blocks the shard lacks.
    ///
    /// With `replicated=1` the tables that keep rows are `Replicated…MergeTree`
    /// (``ClickHouseSchema/engine(_:database:table:replicated:)``) and each shard's other
    /// replicas (``followers``) get the same tables and views, at the same version, but no
    /// backfill or `ALTER`: those reach them through ZooKeeper from the replica written to.
    public func createSchema(issueLinks: () throws -> [(id: String, prefix: Data)] = { [] }) throws {
        let database = location.database
        for node in shards + followers.joined() + [entry] {
            try node.execute("CREATE DATABASE IF NOT EXISTS \(database)")
        }
        var links: [[(id: String, prefix: Data)]]?
        for (shardIndex, node) in shards.enumerated() {
            guard let state = try NodeTables(node, database: database) else { continue }
            try createTables(node, state)
            if state.hadEvents && !state.hadRollups {
                for statement in ClickHouseSchema.rollupBackfill(database: database) { try node.execute(statement) }
            }
            if state.hadEvents && !state.hadFacets {
                for statement in ClickHouseSchema.facetBackfill(database: database) { try node.execute(statement) }
            }
            if state.hadEvents && !state.hadRequests { try node.execute(ClickHouseSchema.requestBackfill(database: database)) }
            if state.hadEvents && state.held < 5 {
                let columns = try node.rows("""
                    SELECT name FROM system.columns WHERE database = \(ClickHouseNode.literal(database)) AND table = 'apm_event_local'
                    """).compactMap { $0.first ?? nil }
                if !columns.contains("fingerprint") {
                    try node.execute("ALTER TABLE \(localTable) ADD COLUMN fingerprint String")
                }
                if links == nil {
                    var perShard = Array(repeating: [(id: String, prefix: Data)](), count: shards.count)
                    for row in try issueLinks() { perShard[Self.shard(of: row.id, shards: shards.count)].append(row) }
                    links = perShard
                }
                try backfill(links?[shardIndex] ?? [], shard: shardIndex)
            }
            try recordVersion(node, state)
        }
        // The other replicas get the tables and views only: the rows, the backfills' included,
        // and an `ALTER` of a replicated table reach them through ZooKeeper.
        for node in followers.joined() {
            guard let state = try NodeTables(node, database: database) else { continue }
            try createTables(node, state)
            try recordVersion(node, state)
        }
        // A `Distributed` table holds no rows: one made before version 5 is made again with the
        // `fingerprint` column.
        let distributedColumns = try entry.rows("""
            SELECT name FROM system.columns WHERE database = \(ClickHouseNode.literal(database)) AND table = 'apm_event'
            """).compactMap { $0.first ?? nil }
        if !distributedColumns.isEmpty && !distributedColumns.contains("fingerprint") {
            try entry.execute("DROP TABLE IF EXISTS \(distributedTable)")
        }
        try entry.execute(ClickHouseSchema.distributedTable(database: database, cluster: location.cluster))
        for statement in ClickHouseSchema.rollupDistributedTables(database: database, cluster: location.cluster) {
            try entry.execute(statement)
        }
        try entry.execute(ClickHouseSchema.requestDistributedTable(database: database, cluster: location.cluster))
    }

    /// What one node's tables are, read before they are brought to ``ClickHouseSchema/version``.
    private struct NodeTables {
        /// The version the node was brought to (0 for none).
        var held: Int
        /// What the roll-up, facet and request views select from on this node.
        var source: String
        /// The views that read anything else (the event table, before version 4).
        var stale: [String]
        /// Which tables the node had.
        var hadEvents, hadRollups, hadFacets, hadRequests: Bool

        /// Reads `node`'s tables; nil when it is at the current version with no stale view.
        init?(_ node: ClickHouseNode, database: String) throws {
            try node.execute(ClickHouseSchema.versionTable(database: database))
            held = Int(try node.rows("SELECT max(version) FROM \(database).vigil_schema_version").first?.first??.description ?? "") ?? 0
            func has(_ table: String) throws -> Bool {
                try node.rows("""
                    SELECT count() FROM system.tables WHERE database = \(ClickHouseNode.literal(database)) AND name = \(ClickHouseNode.literal(table))
                    """).first?.first??.description == "1"
            }
            // The views read the contributions through the link this node follows, asked at
            // every start (a ClickHouse upgraded under a cluster changes it); views reading
            // anything else — the event table, before version 4 — are created again (their
            // tables and rows stay).
            let source = ClickHouseSchema.viewSource(database: database, cascade: try ClickHouseCascade.probe(node, database: database))
            self.source = source
            stale = try ClickHouseSchema.contributionViews.filter { view in
                guard try has(view) else { return false }
                let definition = try node.rows("SHOW CREATE TABLE \(database).\(view)").first?.first ?? nil
                let words = (definition ?? "").replacingOccurrences(of: "`", with: "").split(whereSeparator: \.isWhitespace)
                return !(words.joined(separator: " ") + " ").contains("FROM \(source) ")
            }
            guard held < ClickHouseSchema.version || !stale.isEmpty else { return nil }
            // What the node held, by its tables (a view may be gone: see above).
            hadEvents = try has("apm_event_local")
            hadRollups = try has("apm_rollup_sums_local")
            hadFacets = try has("apm_facet_sums_local")
            hadRequests = try has("apm_request_local")
        }
    }

    /// Drops `state`'s stale views and creates every missing table and view on `node`.
    private func createTables(_ node: ClickHouseNode, _ state: NodeTables) throws {
        let database = location.database
        let replicated = location.replicated
        for view in state.stale { try node.execute("DROP TABLE IF EXISTS \(database).\(view)") }
        try node.execute(ClickHouseSchema.localTable(database: database, replicated: replicated))
        for statement in ClickHouseSchema.contributionTable(database: database) { try node.execute(statement) }
        for statement in ClickHouseSchema.rollupTables(database: database, reading: state.source, replicated: replicated) {
            try node.execute(statement)
        }
        for statement in ClickHouseSchema.requestTable(database: database, reading: state.source, replicated: replicated) {
            try node.execute(statement)
        }
    }

    /// Records on `node` that it is at ``ClickHouseSchema/version``, unless it was already.
    private func recordVersion(_ node: ClickHouseNode, _ state: NodeTables) throws {
        if state.held < ClickHouseSchema.version {
            try node.execute("INSERT INTO \(location.database).vigil_schema_version (version) VALUES (\(ClickHouseSchema.version))")
        }
    }

    /// Most link rows in one block of the version-5 backfill.
    static let backfillBlockRows = 50_000

    /// The batch id of block `block` of the version-5 backfill: fixed, far from the random ids
    /// of spool batches (which have their top bits set nearly always).
    static func backfillBatchID(_ block: Int) -> Int64 { 0x5600_0000 + Int64(block) }

    /// Inserts `rows` (link rows, each with its event id) into the shard in blocks under fixed
    /// batch ids, skipping the blocks it holds already.
    private func backfill(_ rows: [(id: String, prefix: Data)], shard: Int) throws {
        let blocks = stride(from: 0, to: rows.count, by: Self.backfillBlockRows).map { start in
            rows[start..<min(start + Self.backfillBlockRows, rows.count)]
        }
        guard !blocks.isEmpty else { return }
        let held = try heldBatches(shard: shard, ids: blocks.indices.map(Self.backfillBatchID))
        for (index, block) in blocks.enumerated() where held[Self.backfillBatchID(index)] == nil {
            var body = Data()
            for row in block { ClickHouseEventRow.finish(row.prefix, batchID: Self.backfillBatchID(index), into: &body) }
            try insert(shard: shard, body)
        }
    }

    /// The shard (0-based) an event id's row goes to: FNV-1a of the id, modulo the shard count.
    static func shard<S: StringProtocol>(of id: S, shards: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int(hash % UInt64(max(1, shards)))
    }

    /// How many rows of each of `ids` the shard's local table holds (ids it lacks are absent).
    func heldBatches(shard: Int, ids: [Int64]) throws -> [Int64: Int] {
        guard !ids.isEmpty else { return [:] }
        let list = ids.map { String(UInt64(bitPattern: $0)) }.joined(separator: ", ")
        var held: [Int64: Int] = [:]
        for row in try shards[shard].rows("SELECT batch_id, count() FROM \(localTable) WHERE batch_id IN (\(list)) GROUP BY batch_id") {
            if let id = row[0].flatMap({ UInt64($0) }), let count = row[1].flatMap({ Int($0) }) {
                held[Int64(bitPattern: id)] = count
            }
        }
        return held
    }

    /// Inserts `rows` (JSONEachRow) into the shard's local table in one block.
    ///
    /// With `replicated=1` it first asks the node whether any of the database's replicated
    /// tables is read-only or has lost its ZooKeeper session, and throws
    /// ``ClickHouseError/readOnlyReplicas(_:)`` without sending when one is. ClickHouse writes
    /// an insert into the event table first and then into each view's table, each committed
    /// to ZooKeeper on its own: after an outage the tables take their sessions back one by one,
    /// and an insert sent meanwhile would be kept by the event table and refused by a view's,
    /// leaving the roll-ups short (the batch check then finds the rows and does not send them
    /// again).
    func insert(shard: Int, _ rows: Data) throws {
        let node = shards[shard]
        if location.replicated {
            let waiting = try node.rows("""
                SELECT table FROM system.replicas
                WHERE database = \(ClickHouseNode.literal(location.database)) AND (is_readonly OR is_session_expired) ORDER BY table
                """).compactMap { $0.first ?? nil }
            guard waiting.isEmpty else {
                throw ClickHouseError.readOnlyReplicas("shard \(shard + 1) at \(node): \(waiting.joined(separator: ", "))")
            }
        }
        try node.insertJSONEachRow(into: localTable, rows)
    }
}
