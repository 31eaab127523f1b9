import Foundation
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// Tells the runner when the main run loop is idle, to start `idle`-phase tasks.
///
/// The runner starts the signal after the first frame is reported (and only if the graph has
/// idle tasks), runs at most one main-lane idle task per call, asks for another call with
/// ``requestTurn()`` while main-lane idle work remains, and stops the signal when every idle
/// task has settled.
public protocol LaunchIdleSignal: AnyObject, Sendable {
    /// Begins calling `handler` each time the main run loop is about to wait for events; calls
    /// come on the main thread.
    func start(_ handler: @escaping @Sendable () -> Void)
    /// Asks for one more call soon, even if nothing else wakes the run loop.
    func requestTurn()
    /// Stops the calls.
    func stop()
}

/// The main run loop's idle moments, observed with a `CFRunLoopObserver` on `BeforeWaiting`
/// (in the common modes). Works wherever the main thread runs a `RunLoop`/`CFRunLoop`: every
/// app, and Linux processes that run `RunLoop.main`.
public final class MainRunLoopIdleSignal: LaunchIdleSignal, @unchecked Sendable {
    private let lock = NSLock()
    private var observer: CFRunLoopObserver?

    /// A signal that does nothing until started.
    public init() {}

    public func start(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard observer == nil else { return }
        let created = CFRunLoopObserverCreateWithHandler(kCFAllocatorDefault, CFRunLoopActivity.beforeWaiting.rawValue,
                                                         true, 0) { _, _ in handler() }
        CFRunLoopAddObserver(CFRunLoopGetMain(), created, kCFRunLoopCommonModes)
        observer = created
        // The run loop may be asleep already; wake it so that it goes idle again and calls us.
        CFRunLoopWakeUp(CFRunLoopGetMain())
    }

    public func requestTurn() {
        CFRunLoopWakeUp(CFRunLoopGetMain())
    }

    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        if let observer { CFRunLoopObserverInvalidate(observer) }
        observer = nil
    }
}

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
