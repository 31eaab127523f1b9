import Foundation

/// An idle signal fired by hand: for tests, and for hosts that know their own idle moments.
public final class ManualIdleSignal: LaunchIdleSignal, @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable () -> Void)?
    private var requests = 0

    /// A signal that does nothing until started and fired.
    public init() {}

    /// Whether the runner started the signal and has not stopped it.
    public var isStarted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return handler != nil
    }

    /// How many times the runner asked for another turn.
    public var turnRequests: Int {
        lock.lock()
        defer { lock.unlock() }
        return requests
    }

    /// Reports an idle moment: calls the runner's handler on this thread, if started. Call it
    /// on the main thread (or the main actor) for main-lane idle tasks to run in the call.
    public func fire() {
        lock.lock()
        let current = handler
        lock.unlock()
        current?()
    }

    public func start(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        self.handler = handler
    }

    public func requestTurn() {
        lock.lock()
        defer { lock.unlock() }
        requests += 1
    }

    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        handler = nil
    }
}
