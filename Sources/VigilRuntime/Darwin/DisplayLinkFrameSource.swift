#if canImport(UIKit) && !os(watchOS)
import Foundation
import QuartzCore
import UIKit
import VigilCore

/// The frame source on iOS: a `CADisplayLink` on the main run loop in the common
/// modes. Mirrors ``RunLoopFrameClock`` (Linux). `CADisplayLink` timestamps are on the same
/// clock as `DispatchTime` (mach absolute time), so they convert directly. Each frame's duration
/// is the link's own `targetTimestamp − timestamp` (its actual rate, which ProMotion changes),
/// and the link asks for the screen's maximum rate when the app may render at it
/// (``DisplayLinkRatePolicy``: `CADisableMinimumFrameDurationOnPhone` on iPhones).
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
        // Tick as often as the app may render (ProMotion; DisplayLinkRatePolicy), so a drop
        // at 120 Hz is not hidden inside a 60 Hz tick.
        let optedIn = (Bundle.main.object(forInfoDictionaryKey: DisplayLinkRatePolicy.infoKey) as? Bool) ?? false
        if #available(iOS 15.0, tvOS 15.0, *),
           let policy = DisplayLinkRatePolicy.range(isPhone: UIDevice.current.userInterfaceIdiom == .phone,
                                                    appDisablesMinimumFrameDuration: optedIn,
                                                    maximumFramesPerSecond: UIScreen.main.maximumFramesPerSecond) {
            newLink.preferredFrameRateRange = CAFrameRateRange(minimum: policy.minimum, maximum: policy.maximum,
                                                               preferred: policy.preferred)
        }
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
