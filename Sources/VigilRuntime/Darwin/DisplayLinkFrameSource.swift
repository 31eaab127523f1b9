#if canImport(UIKit) && !os(watchOS)
import Foundation
import QuartzCore
import UIKit
import VigilCore

/// The frame source on iOS: a `CADisplayLink` on the main run loop in the common
/// modes. Mirrors ``RunLoopFrameClock`` (Linux). `CADisplayLink` timestamps are on the same
/// clock as `DispatchTime` (mach absolute time), so they convert directly.
public final class DisplayLinkFrameSource: NSObject, FrameTimingSource, @unchecked Sendable {
    private let lock = NSLock()
    private var observers: [@Sendable (FrameTiming) -> Void] = []
    private var link: CADisplayLink?

    public override init() { super.init() }

    public func addFrameObserver(_ body: @escaping @Sendable (FrameTiming) -> Void) {
        lock.lock(); defer { lock.unlock() }
        observers.append(body)
    }

    public func start() {
        guard link == nil else { return }
        let newLink = CADisplayLink(target: self, selector: #selector(frame(_:)))
        newLink.add(to: .main, forMode: .common)
        link = newLink
    }

    public func stop() {
        link?.invalidate()
        link = nil
    }

    @objc private func frame(_ link: CADisplayLink) {
        let timing = FrameTiming(timestamp: MonotonicInstant(nanoseconds: UInt64(max(0, link.timestamp) * 1e9)),
                                 targetTimestamp: MonotonicInstant(nanoseconds: UInt64(max(0, link.targetTimestamp) * 1e9)))
        lock.lock()
        let current = observers
        lock.unlock()
        for observer in current { observer(timing) }
    }
}
#endif
