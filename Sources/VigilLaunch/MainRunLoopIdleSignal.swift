import Foundation
#if canImport(CoreFoundation)
import CoreFoundation
#endif

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
        CFRunLoopAddObserver(CFRunLoopGetMain(), created, Self.commonModes)
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
