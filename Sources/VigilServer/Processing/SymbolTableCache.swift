import Foundation
import Synchronization

/// Opened symbol tables shared by every processing worker, by project and debug id, with a
/// bounded size; also remembers for a short while which ids have no symbols, so that a batch
/// of events from an app without uploads costs one query per image, not one per frame.
///
/// Threading: safe to share. Tables are loaded through the calling transaction's connection
/// (``view(projectID:connection:bypassNegative:)``), never a second one.
public final class SymbolTableCache: Sendable {
    private let engine: (any SymbolicationEngine)?
    private let capacity: Int
    private let negativeSeconds: Double
    private let state = Mutex(State())

    private struct State {
        var tables: [Key: (table: any SymbolTable, used: UInt64)] = [:]
        var absent: [Key: Date] = [:]
        var tick: UInt64 = 0
    }

    private struct Key: Hashable {
        var projectID: Int64
        var debugID: String
    }

    /// A cache opening SymCaches with `engine` (nil: no symbolication, every image is missing).
    public init(engine: (any SymbolicationEngine)?, capacity: Int = 256, negativeSeconds: Double = 10) {
        self.engine = engine
        self.capacity = capacity
        self.negativeSeconds = negativeSeconds
    }

    /// Forgets what it knows about `debugID` (symbols were just uploaded).
    public func invalidate(projectID: Int64, debugID: String) {
        let key = Key(projectID: projectID, debugID: DebugIDSpelling.normalize(debugID))
        state.withLock { state in
            state.tables[key] = nil
            state.absent[key] = nil
        }
    }

    /// A source for one project that loads missing tables through `connection`;
    /// `bypassNegative` ignores remembered absences (re-processing after an upload).
    func view(projectID: Int64, connection: any DatabaseConnection, bypassNegative: Bool) -> SymbolTableView {
        SymbolTableView(cache: self, projectID: projectID, loader: .connection(connection), bypassNegative: bypassNegative)
    }

    /// A source for one project that reads a missing table through a connection of `database`
    /// taken only then (analysis outside a transaction, where most lookups hit the cache).
    func view(projectID: Int64, database: any Database, bypassNegative: Bool) -> SymbolTableView {
        SymbolTableView(cache: self, projectID: projectID, loader: .database(database), bypassNegative: bypassNegative)
    }

    fileprivate func table(projectID: Int64, debugID: String, arch: String, loader: SymbolTableView.Loader,
                           bypassNegative: Bool) -> (any SymbolTable)? {
        guard let engine else { return nil }
        let key = Key(projectID: projectID, debugID: DebugIDSpelling.normalize(debugID))
        let now = Date()
        let cached: (any SymbolTable)?? = state.withLock { state in
            state.tick += 1
            if let entry = state.tables[key] {
                state.tables[key] = (entry.table, state.tick)
                return .some(entry.table)
            }
            if !bypassNegative, let until = state.absent[key], until > now { return .some(nil) }
            return nil
        }
        if let cached { return cached }
        let data: Data?
        switch loader {
        case .connection(let connection):
            data = try? ServerStore.symCache(on: connection, projectID: projectID, debugID: key.debugID, arch: arch)
        case .database(let database):
            data = try? database.read { connection in
                try ServerStore.symCache(on: connection, projectID: projectID, debugID: key.debugID, arch: arch)
            }
        }
        let table = data.flatMap { try? engine.table(fromSymCache: $0) }
        state.withLock { state in
            if let table {
                state.tick += 1
                state.tables[key] = (table, state.tick)
                if state.tables.count > capacity, let oldest = state.tables.min(by: { $0.value.used < $1.value.used })?.key {
                    state.tables[oldest] = nil
                }
            } else {
                state.absent[key] = now.addingTimeInterval(negativeSeconds)
                if state.absent.count > 10_000 { state.absent.removeAll() }
            }
        }
        return table
    }
}

/// One project's symbol tables during one processing transaction.
struct SymbolTableView: SymbolTableSource {
    /// Where a table missing from the cache is read.
    enum Loader {
        /// The caller's connection (inside its transaction).
        case connection(any DatabaseConnection)
        /// A connection of the database, taken for the read.
        case database(any Database)
    }

    let cache: SymbolTableCache
    let projectID: Int64
    let loader: Loader
    let bypassNegative: Bool

    func table(debugID: String, arch: String) -> (any SymbolTable)? {
        cache.table(projectID: projectID, debugID: debugID, arch: arch, loader: loader, bypassNegative: bypassNegative)
    }
}
