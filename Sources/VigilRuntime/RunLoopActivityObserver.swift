import CoreFoundation
import Foundation
import VigilCore

/// Where run-loop activities come from: the real observer on the main run loop, or a scripted
/// source in tests.
public protocol RunLoopActivitySource: AnyObject, Sendable {
    /// Starts observing. Idempotent.
    func install()
    /// Stops observing. Idempotent.
    func uninstall()
    /// Hands every activity observed since the last call to `body`, oldest first, as raw
    /// `CFRunLoopActivity` bits with their timestamps. Call from one consumer only.
    func drain(_ body: (TimestampedCode) -> Void)
    /// Observations dropped because the consumer fell behind.
    var dropped: UInt64 { get }
    /// The most recent observation, readable from any thread.
    var latest: TimestampedCode? { get }
}

/// A `CFRunLoopObserver` on a run loop (the main one by default) that records every activity
/// (entry, before timers, before sources, before waiting, after waiting, exit) with a
/// monotonic timestamp, for the hang detector.
///
/// On the observed thread it does only this: one clock read and a wait-free push into a
/// ``TimestampRing`` (no lock, no allocation, no dispatch). The monitoring queue drains the
/// ring. Works the same on Linux (swift-corelibs CoreFoundation) and Apple platforms, in every
/// common mode (so scrolling and modal tracking modes are observed too).
public final class RunLoopActivityObserver: RunLoopActivitySource, @unchecked Sendable {
    private let ring: TimestampRing
    private let clock: any VigilClock
    private let runLoop: CFRunLoop
    private let lock = NSLock()
    private var observers: [CFRunLoopObserver] = []

    /// An observer for `runLoop` (the main run loop when nil) that keeps up to `capacity`
    /// undrained observations. Returns nil when the ring cannot be allocated.
    public init?(runLoop: CFRunLoop? = nil, clock: any VigilClock = SystemClock(), capacity: Int = 8192) {
        guard let ring = TimestampRing(capacity: capacity) else { return nil }
        self.ring = ring
        self.clock = clock
        self.runLoop = runLoop ?? CFRunLoopGetMain()
    }

    deinit { uninstall() }

    /// Adds the observers to the run loop in its common modes. Safe from any thread.
    ///
    /// Two observers, as Matrix does: the one for the activities that open a busy stretch
    /// (entry, before timers, before sources, after waiting) runs first among the run loop's
    /// observers, the one for those that close it (before waiting, exit) runs last, so that the
    /// work other observers do (autorelease pools, UI commits) counts as busy time.
    public func install() {
        lock.lock(); defer { lock.unlock() }
        guard observers.isEmpty else { return }
        let opening: CFRunLoopActivity = [.entry, .beforeTimers, .beforeSources, .afterWaiting]
        let closing: CFRunLoopActivity = [.beforeWaiting, .exit]
        for (activities, order) in [(opening, CFIndex.min), (closing, CFIndex.max)] {
            let ring = self.ring
            let clock = self.clock
            let created = CFRunLoopObserverCreateWithHandler(kCFAllocatorDefault, activities.rawValue, true, order) { _, activity in
                ring.push(code: UInt32(truncatingIfNeeded: activity.rawValue), instant: clock.monotonicNow())
            }
            guard let created else { continue }
            CFRunLoopAddObserver(runLoop, created, Self.commonModes)
            observers.append(created)
        }
    }

    /// Removes the observers. Safe from any thread.
    public func uninstall() {
        lock.lock(); defer { lock.unlock() }
        for observer in observers { CFRunLoopObserverInvalidate(observer) }
        observers.removeAll()
    }

    /// Hands every activity observed since the last call to `body`, oldest first. One consumer
    /// (the monitoring queue) only; wait-free.
    public func drain(_ body: (TimestampedCode) -> Void) { ring.drain(body) }

    /// Activities dropped because the ring was full when the main thread pushed them.
    public var dropped: UInt64 { ring.dropped }

    /// The last activity the main thread pushed; any thread (two relaxed loads).
    public var latest: TimestampedCode? { ring.latest }

    /// The run loop's "common modes" pseudo-mode; named differently by Apple's CoreFoundation
    /// overlay and by swift-corelibs-foundation.
    private static var commonModes: CFRunLoopMode {
        #if canImport(Darwin)
        return CFRunLoopMode.commonModes
        #else
        return kCFRunLoopCommonModes
        #endif
    }
}
