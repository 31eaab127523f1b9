import Foundation

/// Where and when the uploader's work runs: one serial context with delayed execution.
///
/// Every piece of the uploader's state is touched only from work submitted here, so the
/// scheduler is also its lock. Production uses ``DispatchUploadScheduler``; unit tests use a
/// manual scheduler whose time moves only when the test says so.
public protocol UploadScheduler: Sendable {
    /// Runs `work` after `seconds` (0: as soon as possible), after all work due earlier.
    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void)
}

/// An ``UploadScheduler`` on a serial dispatch queue.
///
/// `timeScale` multiplies every delay: 1 in production; a tiny value lets an end-to-end test
/// run 30-second backoffs in milliseconds with the real policy shape.
public final class DispatchUploadScheduler: UploadScheduler {
    private let queue: DispatchQueue
    private let timeScale: Double

    /// A scheduler on a new serial queue at utility priority.
    public init(label: String = "dev.vigil.uploader", timeScale: Double = 1) {
        queue = DispatchQueue(label: label, qos: .utility)
        self.timeScale = max(0, timeScale)
    }

    public func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) {
        let delay = max(0, seconds) * timeScale
        if delay == 0 {
            queue.async(execute: work)
        } else {
            queue.asyncAfter(deadline: .now() + delay, execute: work)
        }
    }
}
