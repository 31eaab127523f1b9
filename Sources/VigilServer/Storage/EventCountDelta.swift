/// How one transaction changed the number of stored events per project and state (0 waiting,
/// 1 processed, 2 waiting for re-processing), written to `event_counts` as that transaction's
/// last statement, so the counts commit or roll back with the events they count.
///
/// Why a count table: `/metrics` and the dashboard need these numbers often, and counting
/// `apm_event` scans it; reading `event_counts` costs a few rows whatever the event count.
///
/// Each transaction adds its changes to one `slot` row per (project, state): on PostgreSQL a
/// random one of ``slots``, so that concurrent transactions — of this server or of another on
/// the same database — rarely wait for each other's row lock; readers sum the slots. The upsert
/// is the transaction's last statement, so a transaction holding a slot's lock never waits for
/// anything else, and no two can deadlock on them.
struct EventCountDelta: Sendable {
    private struct Key: Hashable, Comparable {
        var projectID: Int64
        var state: Int

        static func < (a: Key, b: Key) -> Bool { (a.projectID, a.state) < (b.projectID, b.state) }
    }

    private var changes: [Key: Int64] = [:]

    /// Slots per (project, state) on PostgreSQL; SQLite has one writer and uses slot 0.
    static let slots = 32

    /// No changes.
    init() {}

    /// Whether nothing changed.
    var isEmpty: Bool { changes.values.allSatisfy { $0 == 0 } }

    /// `count` events of `projectID` entered `state` (a negative count: left it).
    mutating func add(projectID: Int64, state: Int, _ count: Int) {
        guard count != 0 else { return }
        changes[Key(projectID: projectID, state: state), default: 0] += Int64(count)
    }

    /// `count` events of `projectID` went from state `from` to state `to`.
    mutating func move(projectID: Int64, from: Int, to: Int, _ count: Int) {
        guard from != to else { return }
        add(projectID: projectID, state: from, -count)
        add(projectID: projectID, state: to, count)
    }

    /// The change of `state` for `projectID`; for tests.
    func change(projectID: Int64, state: Int) -> Int64 { changes[Key(projectID: projectID, state: state)] ?? 0 }

    /// Adds the changes to the counts in `connection`'s transaction: one statement.
    func write(on connection: any DatabaseConnection) throws {
        let rows = changes.filter { $0.value != 0 }.sorted { $0.key < $1.key }
        guard !rows.isEmpty else { return }
        let slot = connection.dialect == .postgres ? Int.random(in: 0..<Self.slots) : 0
        var arguments: [SQLValue] = []
        arguments.reserveCapacity(rows.count * 4)
        for (key, change) in rows {
            arguments += [.integer(key.projectID), .int(slot), .int(key.state), .integer(change)]
        }
        let values = Array(repeating: "(?, ?, ?, ?)", count: rows.count).joined(separator: ", ")
        try connection.execute("""
            INSERT INTO event_counts (project_id, slot, state, n) VALUES \(values)
            ON CONFLICT (project_id, slot, state) DO UPDATE SET n = event_counts.n + excluded.n
            """, arguments)
    }
}
