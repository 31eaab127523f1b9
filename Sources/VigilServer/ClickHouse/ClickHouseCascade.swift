/// How a ClickHouse server passes the rows one materialized view writes on to further views.
/// Releases differ, so Vigil asks each shard node (``probe(_:database:)``) instead of
/// assuming: 18.16 pushes a view's output to the views that select `FROM` that view, current
/// releases to the views that select `FROM` the view's `TO` table (and no longer to the former).
/// The roll-up views read the contributions through whichever link the node follows
/// (``ClickHouseSchema/viewSource(database:cascade:)``).
enum ClickHouseCascade: String, Sendable {
    /// Views selecting `FROM` a view get the rows it writes (18.16).
    case fromView
    /// Views selecting `FROM` a view's `TO` table get the rows it writes (current releases).
    case fromTarget
    /// Neither: views must read the event table itself.
    case none

    /// What `node` does, found by inserting one row through two throwaway views (tables named
    /// `vigil_probe_<random>_…` in `database`, dropped afterwards).
    static func probe(_ node: ClickHouseNode, database: String) throws -> ClickHouseCascade {
        let tag = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        func name(_ part: String) -> String { "\(database).vigil_probe_\(tag)_\(part)" }
        defer {
            for part in ["via_view", "via_target", "step", "seen", "middle", "source"] {
                try? node.execute("DROP TABLE IF EXISTS \(name(part))")
            }
        }
        try node.execute("CREATE TABLE \(name("source")) (x UInt8) ENGINE = Null")
        try node.execute("CREATE TABLE \(name("middle")) (x UInt8) ENGINE = Null")
        try node.execute("CREATE TABLE \(name("seen")) (form String, x UInt8) ENGINE = Memory")
        try node.execute("CREATE MATERIALIZED VIEW \(name("step")) TO \(name("middle")) AS SELECT x FROM \(name("source"))")
        try node.execute("CREATE MATERIALIZED VIEW \(name("via_view")) TO \(name("seen")) AS SELECT 'view' AS form, x FROM \(name("step"))")
        try node.execute("CREATE MATERIALIZED VIEW \(name("via_target")) TO \(name("seen")) AS SELECT 'target' AS form, x FROM \(name("middle"))")
        try node.execute("INSERT INTO \(name("source")) (x) VALUES (1)")
        let seen = Set(try node.rows("SELECT form FROM \(name("seen"))").compactMap { $0.first ?? nil })
        // Were both ever followed, either form alone counts each row once.
        return seen.contains("target") ? .fromTarget : seen.contains("view") ? .fromView : .none
    }
}
