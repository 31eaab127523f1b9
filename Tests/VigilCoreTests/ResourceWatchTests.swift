import Testing
import VigilCore

@Suite("Resource watch")
struct ResourceWatchTests {
    private func configuration(processors: Int = 8) -> ResourceConfiguration {
        var configuration = ResourceConfiguration()
        configuration.processorCount = processors
        return configuration
    }

    private func sample(_ seconds: Double, cpu: Double, threads: [ThreadCPUTime] = [],
                        memory: UInt64 = 100 << 20) -> ResourceSample {
        ResourceSample(instant: .milliseconds(seconds * 1000), processCPUSeconds: cpu, threads: threads,
                       memoryBytes: memory, rssBytes: memory, pssBytes: memory / 2)
    }

    @Test("CPU % is CPU time over wall time since the previous sample; the first sample is the baseline")
    func cpuPercent() throws {
        var watch = ResourceWatch(configuration: configuration())
        let baseline = watch.record(sample(0, cpu: 10))
        #expect(baseline == nil)
        let next = watch.record(sample(5, cpu: 12.5, memory: 200 << 20))
        let payload = try #require(next)
        #expect(payload.cpuPercent.isApproximately(50))
        #expect(payload.memoryBytes == 200 << 20)
        #expect(payload.pssBytes == 100 << 20)
        #expect(payload.cpuBlock == nil)
        // Two cores flat out.
        let twoCores = watch.record(sample(10, cpu: 22.5))
        #expect(try #require(twoCores).cpuPercent.isApproximately(200))
    }

    @Test("top threads by their own CPU share, busiest first, new threads counted, reused ids skipped")
    func topThreads() throws {
        var configuration = configuration()
        configuration.topThreadCount = 2
        var watch = ResourceWatch(configuration: configuration)
        _ = watch.record(sample(0, cpu: 0, threads: [
            ThreadCPUTime(id: 1, name: "main", cpuSeconds: 1.0),
            ThreadCPUTime(id: 2, name: "worker", cpuSeconds: 1.0),
            ThreadCPUTime(id: 3, name: "reused", cpuSeconds: 9.0),
        ]))
        let recorded = watch.record(sample(5, cpu: 4.0, threads: [
            ThreadCPUTime(id: 1, name: "main", cpuSeconds: 1.5),     // 10%
            ThreadCPUTime(id: 2, name: "worker", cpuSeconds: 3.0),   // 40%
            ThreadCPUTime(id: 3, name: "reused", cpuSeconds: 0.1),   // went down: id reused
            ThreadCPUTime(id: 4, name: "new", cpuSeconds: 1.0),      // 20%, born in the interval
            ThreadCPUTime(id: 5, name: "unlisted", cpuSeconds: 60),  // more than one core: existed before
        ]))
        let payload = try #require(recorded)
        let threads = try #require(payload.threads)
        #expect(threads.map(\.name) == ["worker", "new"])
        #expect(threads[0].cpuPercent.isApproximately(40))
        #expect(threads[1].cpuPercent.isApproximately(20))
        #expect(watch.counters.skippedThreadReadings == 2)
    }

    @Test("a CPU block is reported when the average over the window passes 80%, once per window")
    func cpuBlock() throws {
        var watch = ResourceWatch(configuration: configuration())
        var cpu = 0.0
        _ = watch.record(sample(0, cpu: cpu))
        var blocks: [(second: Int, block: CPUBlock)] = []
        for step in 1...36 {                       // 180 s at 90% of a core
            cpu += 4.5
            if let block = watch.record(sample(Double(step * 5), cpu: cpu))?.cpuBlock {
                blocks.append((step * 5, block))
            }
        }
        #expect(blocks.map(\.second) == [60, 120, 180])
        let first = try #require(blocks.first?.block)
        #expect(first.windowMs == 60_000)
        #expect(first.averagePercent.isApproximately(90))
        #expect(first.thresholdPercent == 80)
        #expect(watch.counters.cpuBlocks == 3)
    }

    @Test("the sliding window catches a block that starts mid-window; 80% exactly is not a block")
    func slidingWindow() {
        var watch = ResourceWatch(configuration: configuration())
        var cpu = 0.0
        var time = 0.0
        _ = watch.record(sample(time, cpu: cpu))
        var blockAt: Double?
        // 30 s idle, then 95%.
        for step in 1...30 {
            time += 5
            cpu += step <= 6 ? 0 : 4.75
            if watch.record(sample(time, cpu: cpu))?.cpuBlock != nil, blockAt == nil { blockAt = time }
        }
        // The window average is 95% × (t − 30 s) / 60 s: first above 80% at t = 85 s.
        #expect(blockAt == 85)
        var steady = ResourceWatch(configuration: configuration())
        _ = steady.record(sample(0, cpu: 0))
        for step in 1...24 {
            let payload = steady.record(sample(Double(step * 5), cpu: Double(step) * 4))
            #expect(payload?.cpuBlock == nil)
        }
    }

    @Test("out-of-order, duplicate and absurd samples are skipped and counted")
    func badSamples() throws {
        var watch = ResourceWatch(configuration: configuration(processors: 2))
        let inputs: [(Double, Double)] = [(10, 6), (9, 6), (15, .nan), (16, -1)]
        _ = watch.record(sample(10, cpu: 5))
        for (time, cpu) in inputs {
            let skipped = watch.record(sample(time, cpu: cpu))
            #expect(skipped == nil)
        }
        #expect(watch.counters.duplicateSamples == 1)
        #expect(watch.counters.outOfOrderSamples == 1)
        #expect(watch.counters.absurdSamples == 2)
        let wentDown = watch.record(sample(20, cpu: 4))       // CPU time went down: new baseline
        let tooFast = watch.record(sample(25, cpu: 100))      // 96 s in 5 s on 2 cores
        #expect(wentDown == nil && tooFast == nil)
        #expect(watch.counters.absurdSamples == 4)
        let last = watch.record(sample(30, cpu: 105))          // measured from the last baseline
        let payload = try #require(last)
        #expect(payload.cpuPercent.isApproximately(100))
    }
}
