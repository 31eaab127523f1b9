import Foundation
import Testing
import VigilCore
import VigilRuntime

@Suite("Watchdog thread")
struct WatchdogThreadTests {
    final class Ticks: @unchecked Sendable {
        private let lock = NSLock()
        private var ticks: [WatchdogTick] = []
        func append(_ tick: WatchdogTick) { lock.lock(); ticks.append(tick); lock.unlock() }
        var all: [WatchdogTick] { lock.lock(); defer { lock.unlock() }; return ticks }
    }

    @Test("ticks at its period with increasing sequence numbers, and stops at once")
    func ticksAndStops() {
        let ticks = Ticks()
        let watchdog = WatchdogThread(intervalMs: 20) { ticks.append($0); return nil }
        watchdog.start()
        Thread.sleep(forTimeInterval: 0.25)
        let stopping = Date()
        watchdog.stop()
        #expect(Date().timeIntervalSince(stopping) < 0.5, "stop() wakes the thread instead of waiting out its period")
        let seen = ticks.all
        #expect(seen.count >= 3 && seen.count <= 14, "about 12 ticks in 250 ms at 20 ms, fewer on a loaded machine (\(seen.count))")
        #expect(seen.map(\.sequence) == Array(1...UInt64(seen.count)))
        #expect(seen.allSatisfy { $0.fired >= $0.scheduled })
        // The schedule does not drift: deadlines are whole periods apart.
        for (earlier, later) in zip(seen, seen.dropFirst()) {
            #expect(later.scheduled.milliseconds(since: earlier.scheduled) >= 19.9)
        }
        Thread.sleep(forTimeInterval: 0.05)
        #expect(ticks.all.count == seen.count, "no tick after stop() returned")
    }
}

extension WatchdogThreadTests {
    @Test("sleeps until the deadline the handler asks for")
    func followsRequestedDeadline() {
        let ticks = Ticks()
        let clock = SystemClock()
        let watchdog = WatchdogThread(intervalMs: 10, clock: clock) { tick in
            ticks.append(tick)
            return tick.fired.advanced(byMilliseconds: 80)
        }
        watchdog.start()
        Thread.sleep(forTimeInterval: 0.3)
        watchdog.stop()
        let seen = ticks.all
        #expect(seen.count >= 1 && seen.count <= 5, "ticks 80 ms apart, not 10 (\(seen.count) in 300 ms)")
        for (earlier, later) in zip(seen, seen.dropFirst()) {
            #expect(later.scheduled.milliseconds(since: earlier.fired) >= 79.9)
        }
    }

    @Test("wake() makes it tick at once, and the early tick is not late")
    func wakesEarly() {
        let ticks = Ticks()
        let watchdog = WatchdogThread(intervalMs: 10_000) { ticks.append($0); return nil }
        watchdog.start()
        Thread.sleep(forTimeInterval: 0.05)
        watchdog.wake()
        Thread.sleep(forTimeInterval: 0.05)
        watchdog.stop()
        let seen = ticks.all
        #expect(seen.count == 1)
        #expect(seen.first.map { $0.latenessMs < 50 } == true)
    }

    @Test("after a stop() that timed out, the next start() and stop() still wait for the thread to leave its handler")
    func stopWaitsAfterTimedOutStop() {
        final class Handler: @unchecked Sendable {
            let lock = NSLock()
            var blocking = true
            var inHandler = false
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)

            func tick() {
                lock.lock()
                let blocks = blocking
                inHandler = true
                lock.unlock()
                entered.signal()
                if blocks { release.wait() } else { Thread.sleep(forTimeInterval: 0.1) }
                lock.lock()
                inHandler = false
                lock.unlock()
            }

            var isInHandler: Bool { lock.lock(); defer { lock.unlock() }; return inHandler }
        }
        let handler = Handler()
        let watchdog = WatchdogThread(intervalMs: 5) { _ in handler.tick(); return nil }
        watchdog.start()
        handler.entered.wait()
        watchdog.stop(timeout: 0.05)  // the handler is stuck: this stop gives up waiting
        handler.lock.lock()
        handler.blocking = false
        handler.lock.unlock()
        handler.release.signal()
        Thread.sleep(forTimeInterval: 0.1)  // the first thread leaves its loop

        watchdog.start()
        handler.entered.wait()
        watchdog.stop()
        #expect(!handler.isInHandler, "stop() returned while its thread was still in the handler")
    }
}
