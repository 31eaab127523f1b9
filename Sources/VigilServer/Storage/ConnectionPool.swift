import Foundation

/// A bounded set of connections handed out one at a time, created on demand by `factory`.
///
/// Threading: safe to share; ``checkout()`` blocks while every connection is in use.
final class ConnectionPool<Connection: AnyObject>: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [Connection] = []
    private var created = 0
    private var closed = false
    private let capacity: Int
    private let factory: () throws -> Connection

    init(capacity: Int, factory: @escaping () throws -> Connection) {
        self.capacity = max(1, capacity)
        self.factory = factory
    }

    /// A connection for the caller's exclusive use until ``checkin(_:discard:)``.
    func checkout() throws -> Connection {
        condition.lock()
        while true {
            if closed {
                condition.unlock()
                throw DatabaseError(backend: .sqlite, code: "21", message: "the database is closed", operation: "checkout")
            }
            if let connection = idle.popLast() {
                condition.unlock()
                return connection
            }
            if created < capacity {
                created += 1
                condition.unlock()
                do {
                    return try factory()
                } catch {
                    condition.lock()
                    created -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            condition.wait()
        }
    }

    /// Returns a connection; `discard` drops it (a broken connection) so a new one is made later.
    func checkin(_ connection: Connection, discard: Bool = false) {
        condition.lock()
        if discard || closed {
            created -= 1
        } else {
            idle.append(connection)
        }
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` with a connection, returning it afterwards.
    func with<T>(_ body: (Connection) throws -> T, discardWhen shouldDiscard: (any Error) -> Bool = { _ in false }) throws -> T {
        let connection = try checkout()
        do {
            let value = try body(connection)
            checkin(connection)
            return value
        } catch {
            checkin(connection, discard: shouldDiscard(error))
            throw error
        }
    }

    /// Drops idle connections and refuses further checkouts.
    func close() {
        condition.lock()
        closed = true
        created -= idle.count
        idle.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
