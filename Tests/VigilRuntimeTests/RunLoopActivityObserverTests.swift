import CoreFoundation
import Foundation
import Testing
import VigilCore
import VigilRuntime

@Suite("Run-loop activity observer")
struct RunLoopActivityObserverTests {
    /// Runs a private run loop on its own thread for `seconds`, with a timer firing `fires`
    /// times, while the observer watches it; returns the drained observations.
    private func observe(seconds: Double, fires: Int) -> (records: [TimestampedCode], dropped: UInt64) {
        final class Box: @unchecked Sendable { var loop: CFRunLoop? }
        let box = Box()
        let ready = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.loop = CFRunLoopGetCurrent()
            ready.signal()
            proceed.wait()
            for fire in 1...fires {
                let timer = Timer(fire: Date().addingTimeInterval(seconds * Double(fire) / Double(fires + 1)),
                                  interval: 0, repeats: false) { _ in }
                RunLoop.current.add(timer, forMode: .default)
            }
            RunLoop.current.run(until: Date().addingTimeInterval(seconds))
            finished.signal()
        }
        thread.start()
        ready.wait()
        let observer = RunLoopActivityObserver(runLoop: box.loop!)!
        observer.install()
        proceed.signal()
        finished.wait()
        observer.uninstall()
        var records: [TimestampedCode] = []
        observer.drain { records.append($0) }
        return (records, observer.dropped)
    }

    @Test("sees every run-loop activity, in a plausible order, with increasing timestamps")
    func seesActivities() {
        let (records, dropped) = observe(seconds: 0.2, fires: 3)
        let codes = records.map(\.code)
        let entry = UInt32(CFRunLoopActivity.entry.rawValue)
        let beforeTimers = UInt32(CFRunLoopActivity.beforeTimers.rawValue)
        let beforeSources = UInt32(CFRunLoopActivity.beforeSources.rawValue)
        let beforeWaiting = UInt32(CFRunLoopActivity.beforeWaiting.rawValue)
        let afterWaiting = UInt32(CFRunLoopActivity.afterWaiting.rawValue)
        let exit = UInt32(CFRunLoopActivity.exit.rawValue)
        #expect(codes.first == entry)
        #expect(codes.last == exit)
        for code in [beforeTimers, beforeSources, beforeWaiting, afterWaiting] {
            #expect(codes.contains(code))
        }
        // Each wait is bracketed: BeforeWaiting is followed by AfterWaiting (or Exit).
        for (index, code) in codes.enumerated() where code == beforeWaiting && index + 1 < codes.count {
            #expect(codes[index + 1] == afterWaiting || codes[index + 1] == exit)
        }
        // Each timer wakes the loop (a loaded machine may fire two in one wake-up).
        #expect(codes.filter { $0 == afterWaiting }.count >= 1)
        #expect(codes.filter { $0 == beforeTimers }.count >= 2)
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.instant <= $1.instant })
        #expect(dropped == 0)
    }
}
