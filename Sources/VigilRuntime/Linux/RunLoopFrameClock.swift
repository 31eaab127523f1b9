import Foundation
import VigilCore

/// A display-link stand-in for Linux: a repeating timer on the main run loop (in the common
/// modes) that fires at the refresh rate and calls its frame observers.
///
/// Like a real display link, a frame whose work overruns, or a blocked main thread, delays the
/// next fire; missed fires are skipped, not queued, so the gap between two frames' timestamps
/// measures the stall. The refresh rate can change while running (60 Hz to 120 Hz and back).
/// Compiles on every platform; the SDK uses it on Linux only.
public final class RunLoopFrameClock: FrameTimingSource, @unchecked Sendable {
    private let clock: any VigilClock
    private let lock = NSLock()
    private var observers: [@Sendable (FrameTiming) -> Void] = []
    private var timer: Timer?
    private var rate: Double

    /// A clock at `refreshRate` frames per second (clamped to 1…240).
    public init(refreshRate: Double = 60, clock: any VigilClock = SystemClock()) {
        self.clock = clock
        self.rate = Self.clamp(refreshRate)
    }

    /// The current refresh rate in Hz.
    public var refreshRate: Double {
        lock.lock(); defer { lock.unlock() }
        return rate
    }

    public func addFrameObserver(_ body: @escaping @Sendable (FrameTiming) -> Void) {
        lock.lock(); defer { lock.unlock() }
        observers.append(body)
    }

    public func start() {
        lock.lock()
        let running = timer != nil
        let interval = 1 / rate
        lock.unlock()
        guard !running else { return }
        let newTimer = Timer(timeInterval: interval, repeats: true) { [weak self] _ in self?.fire() }
        lock.lock()
        timer = newTimer
        lock.unlock()
        RunLoop.main.add(newTimer, forMode: .common)
    }

    public func stop() {
        lock.lock()
        let old = timer
        timer = nil
        lock.unlock()
        old?.invalidate()
    }

    /// Changes the refresh rate; a running clock restarts its timer at the new period. Call on
    /// the main thread.
    public func setRefreshRate(_ refreshRate: Double) {
        lock.lock()
        rate = Self.clamp(refreshRate)
        let running = timer != nil
        lock.unlock()
        if running {
            stop()
            start()
        }
    }

    private func fire() {
        let now = clock.monotonicNow()
        lock.lock()
        let period = Int64(1_000_000_000 / rate)
        let current = observers
        lock.unlock()
        let timing = FrameTiming(timestamp: now, targetTimestamp: now.advanced(byNanoseconds: period))
        for observer in current { observer(timing) }
    }

    private static func clamp(_ rate: Double) -> Double {
        rate.isFinite ? min(max(rate, 1), 240) : 60
    }
}
