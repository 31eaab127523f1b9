/// Turns periodic CPU and memory readings into `resource` payloads: the process's CPU % since
/// the previous reading, its busiest threads, its memory, and a CPU block when the average over
/// a window passes a threshold (Matrix: 80% over a minute).
///
/// **Input**: ``record(_:)`` with a ``ResourceSample`` every sampling interval (5 s by default).
/// The first sample is the baseline and yields nothing.
///
/// **Rules**: CPU % = ΔCPU time / Δwall time × 100, in percent of one core (may exceed 100 on
/// several cores). A thread's share is its own ΔCPU time over the same interval; a thread id
/// seen for the first time counts its whole CPU time (it started within the interval) unless
/// that is more than one core's worth (it existed but was not listed). The CPU block check
/// keeps the most recent intervals covering at least the window; when their average passes the
/// threshold the payload carries a ``CPUBlock`` and the window starts afresh, so a sustained
/// block is reported once per window, not once per sample.
///
/// **Bad input**: a sample older than or as old as the previous one is skipped; CPU time that
/// is non-finite, goes down, or grows faster than all cores allow is skipped and becomes the
/// new baseline. Everything is counted in ``counters``.
///
/// Value type; O(threads · log threads) per sample; memory bounded by the window.
public struct ResourceWatch: Sendable {
    /// The configuration in force (clamped).
    public let configuration: ResourceConfiguration
    /// What was used and skipped.
    public private(set) var counters = ResourceWatchCounters()

    private var order = InputOrderGuard()
    private var previous: ResourceSample?
    private var previousThreads: [UInt64: Double] = [:]
    private var window: [(durationMs: Double, cpuSeconds: Double)] = []
    private var windowDurationMs: Double = 0
    private var windowCPUSeconds: Double = 0

    /// Most intervals kept in the CPU block window (bounds memory when samples come fast).
    private static let maxWindowIntervals = 4096

    /// A watch with no baseline.
    public init(configuration: ResourceConfiguration = ResourceConfiguration()) {
        self.configuration = configuration.clamped()
    }

    /// Average CPU % over the intervals currently in the block window, nil when empty.
    public var windowAveragePercent: Double? {
        windowDurationMs > 0 ? windowCPUSeconds / (windowDurationMs / 1000) * 100 : nil
    }

    /// Feeds one reading; returns the payload for the interval since the previous accepted
    /// reading, or nil for the baseline and for skipped readings.
    public mutating func record(_ sample: ResourceSample) -> ResourcePayload? {
        switch order.admit(sample.instant) {
        case .accepted:
            break
        case .duplicate:
            counters.duplicateSamples += 1
            return nil
        case .rejected:
            counters.outOfOrderSamples += 1
            return nil
        case .resynchronized:
            counters.outOfOrderSamples += 1
            rebaseline(sample)
            return nil
        }
        guard sample.processCPUSeconds.isFinite, sample.processCPUSeconds >= 0 else {
            counters.absurdSamples += 1
            return nil
        }
        guard let previous else {
            rebaseline(sample)
            return nil
        }
        let intervalMs = sample.instant.milliseconds(since: previous.instant)
        let cpuDelta = sample.processCPUSeconds - previous.processCPUSeconds
        // One clock tick of slack: /proc reports CPU time in 10 ms steps.
        let maximumCPU = intervalMs / 1000 * Double(configuration.processorCount) * 1.05 + 0.02
        guard cpuDelta >= 0, cpuDelta <= maximumCPU else {
            counters.absurdSamples += 1
            rebaseline(sample)
            return nil
        }
        let cpuPercent = cpuDelta / (intervalMs / 1000) * 100
        let threads = topThreads(of: sample, intervalMs: intervalMs)
        let block = advanceWindow(durationMs: intervalMs, cpuSeconds: cpuDelta)
        rebaseline(sample)
        counters.samples += 1
        return ResourcePayload(cpuPercent: cpuPercent, threads: threads.isEmpty ? nil : threads,
                               memoryBytes: sample.memoryBytes, rssBytes: sample.rssBytes,
                               pssBytes: sample.pssBytes, cpuBlock: block)
    }

    private mutating func rebaseline(_ sample: ResourceSample) {
        previous = sample
        previousThreads.removeAll(keepingCapacity: true)
        for thread in sample.threads where thread.cpuSeconds.isFinite {
            previousThreads[thread.id] = thread.cpuSeconds
        }
    }

    private mutating func topThreads(of sample: ResourceSample, intervalMs: Double) -> [ThreadUsage] {
        guard configuration.topThreadCount > 0 else { return [] }
        let seconds = intervalMs / 1000
        var usage: [ThreadUsage] = []
        for thread in sample.threads {
            guard thread.cpuSeconds.isFinite, thread.cpuSeconds >= 0 else {
                counters.skippedThreadReadings += 1
                continue
            }
            let delta: Double
            if let before = previousThreads[thread.id] {
                guard thread.cpuSeconds >= before else {
                    counters.skippedThreadReadings += 1
                    continue
                }
                delta = thread.cpuSeconds - before
            } else {
                guard thread.cpuSeconds <= seconds * 1.05 + 0.02 else {
                    counters.skippedThreadReadings += 1
                    continue
                }
                delta = thread.cpuSeconds
            }
            guard delta > 0 else { continue }
            usage.append(ThreadUsage(name: thread.name, id: thread.id, cpuPercent: delta / seconds * 100))
        }
        usage.sort { $0.cpuPercent != $1.cpuPercent ? $0.cpuPercent > $1.cpuPercent : $0.id < $1.id }
        return Array(usage.prefix(configuration.topThreadCount))
    }

    /// Adds one interval to the sliding window; returns a block when the window's average passes
    /// the threshold, and then empties the window.
    private mutating func advanceWindow(durationMs: Double, cpuSeconds: Double) -> CPUBlock? {
        window.append((durationMs, cpuSeconds))
        // Drop the oldest intervals while the rest still cover the window (and beyond the bound).
        var total = window.reduce(0) { $0 + $1.durationMs }
        var dropCount = 0
        while dropCount < window.count - 1,
              total - window[dropCount].durationMs >= configuration.cpuBlockWindowMs
                || window.count - dropCount > Self.maxWindowIntervals {
            total -= window[dropCount].durationMs
            dropCount += 1
        }
        if dropCount > 0 { window.removeFirst(dropCount) }
        windowDurationMs = window.reduce(0) { $0 + $1.durationMs }
        windowCPUSeconds = window.reduce(0) { $0 + $1.cpuSeconds }
        guard windowDurationMs >= configuration.cpuBlockWindowMs,
              let average = windowAveragePercent, average > configuration.cpuBlockThresholdPercent else { return nil }
        let block = CPUBlock(windowMs: windowDurationMs, averagePercent: average,
                             thresholdPercent: configuration.cpuBlockThresholdPercent)
        counters.cpuBlocks += 1
        window.removeAll(keepingCapacity: true)
        windowDurationMs = 0
        windowCPUSeconds = 0
        return block
    }
}
