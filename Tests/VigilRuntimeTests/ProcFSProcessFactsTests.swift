#if os(Linux)
import Foundation
import Testing
import VigilCore
import VigilRuntime
import VigilTestSupport

@Suite("procfs process facts")
struct ProcFSProcessFactsTests {
    @Test("reads this process's real start time, CPU, page faults, memory and threads")
    func realProcess() throws {
        let facts = ProcFSProcessFacts()
        let start = try #require(facts.processStartTime())
        #expect(start <= Date())
        #expect(Date().timeIntervalSince(start) < 3600, "the test process started recently")
        #expect((facts.cpuSeconds() ?? 0) > 0)
        #expect((facts.pageFaults()?.minor ?? 0) > 0)
        // A limit no test process reaches: a parallel test run has dozens of threads, and a
        // thread beyond the limit is counted (see the next test).
        let sample = try #require(facts.resourceSample(at: SystemClock().monotonicNow(), threadLimit: 1 << 20))
        #expect(sample.memoryBytes > 1024 * 1024)
        #expect(sample.pssBytes != nil)
        #expect(!sample.threads.isEmpty)
        #expect(sample.threads.contains { $0.id == UInt64(getpid()) }, "the main thread's task id is the pid")
        #expect(facts.counters == ProcessFactsCounters())
    }

    @Test("threads past the limit are left out, the main thread kept, and counted")
    func threadLimit() throws {
        // One more thread, alive until the sample is taken, so the process has at least two.
        let sampled = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
        let extra = Thread { started.signal(); sampled.wait() }
        extra.start()
        started.wait()
        defer { sampled.signal() }
        let facts = ProcFSProcessFacts()
        let sample = try #require(facts.resourceSample(at: SystemClock().monotonicNow(), threadLimit: 1))
        #expect(sample.threads.map(\.id) == [UInt64(getpid())], "the main thread is kept, whatever the other task ids (they wrap around below the process id on a busy host)")
        #expect(facts.counters.threadsBeyondLimit >= 1)
        #expect(facts.counters.unreadableFiles == 0 && facts.counters.malformedFiles == 0)
    }

    @Test("missing /proc files skip the reading and are counted, never thrown")
    func missingFiles() throws {
        let root = try TemporaryDirectory(prefix: "proc")
        let facts = ProcFSProcessFacts(root: root.url.path)
        #expect(facts.processStartTime() == nil)
        #expect(facts.memoryBytes() == nil)
        #expect(facts.resourceSample(at: SystemClock().monotonicNow(), threadLimit: 8) == nil)
        #expect(facts.counters.unreadableFiles >= 3)
        #expect(facts.counters.malformedFiles == 0)
    }

    @Test("malformed /proc files skip the reading and are counted as malformed")
    func malformedFiles() throws {
        let root = try TemporaryDirectory(prefix: "proc")
        let selfDirectory = root.file("self")
        try FileManager.default.createDirectory(at: selfDirectory.appendingPathComponent("task/42"),
                                                withIntermediateDirectories: true)
        try Data("12 no parentheses here".utf8).write(to: selfDirectory.appendingPathComponent("stat"))
        try Data("Name:\tx\nVmRSS:\tlots kB\n".utf8).write(to: selfDirectory.appendingPathComponent("status"))
        try Data("Pss:".utf8).write(to: selfDirectory.appendingPathComponent("smaps_rollup"))
        try Data("42 (worker) R".utf8).write(to: selfDirectory.appendingPathComponent("task/42/stat"))
        let facts = ProcFSProcessFacts(root: root.url.path)
        #expect(facts.processStartTime() == nil)
        #expect(facts.memoryBytes() == nil)
        #expect(facts.threadTimes(limit: 8).isEmpty)
        #expect(facts.counters.malformedFiles >= 3)
    }

    @Test("a file larger than the reader's bound is refused as malformed, not read half")
    func oversizedFile() throws {
        let root = try TemporaryDirectory(prefix: "proc")
        try FileManager.default.createDirectory(at: root.file("self"), withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 20_000).write(to: root.file("self/status"))
        let facts = ProcFSProcessFacts(root: root.url.path, reader: ProcFileReader(limit: 8192))
        #expect(facts.memoryBytes() == nil)
        #expect(facts.counters.malformedFiles == 1)
    }
}
#endif
