import Foundation
import Testing
import VigilCore

@Suite("Stack sample ring and aggregation")
struct StackAggregationTests {
    private func stack(_ values: UInt64...) -> [Address] { values.map(Address.init) }
    private func sample(_ ms: Double, _ frames: [Address]) -> StackSample {
        StackSample(instant: .milliseconds(ms), frames: frames)
    }

    @Test("the ring never holds more than its capacity and overwrites the oldest first")
    func ringOverwrites() {
        var ring = StackSampleRing(capacity: 3)
        for index in 0..<5 { ring.append(sample(Double(index), stack(UInt64(index) + 1))) }
        #expect(ring.count == 3)
        #expect(ring.isFull)
        #expect(ring.overwritten == 2)
        #expect(ring.samples.map(\.instant) == [2, 3, 4].map { MonotonicInstant.milliseconds($0) })
    }

    @Test("thinning keeps every other sample, oldest first", arguments: [1, 2, 5, 8, 9])
    func thinning(count: Int) {
        var ring = StackSampleRing(capacity: 16)
        for index in 0..<count { ring.append(sample(Double(index), stack(1))) }
        ring.thin()
        #expect(ring.samples.map(\.instant) == stride(from: 0, to: count, by: 2).map { .milliseconds(Double($0)) })
    }

    @Test("thinning after wrap-around keeps time order")
    func thinAfterWrap() {
        var ring = StackSampleRing(capacity: 4)
        for index in 0..<6 { ring.append(sample(Double(index), stack(1))) }
        ring.thin()
        #expect(ring.samples.map(\.instant) == [2, 4].map { MonotonicInstant.milliseconds($0) })
        ring.removeSamples(before: .milliseconds(3))
        #expect(ring.samples.map(\.instant) == [.milliseconds(4)])
    }

    @Test("distinct stacks are counted, most frequent first, ties in first-seen order")
    func counts() {
        let a = stack(1, 9), b = stack(2, 9), c = stack(3, 9)
        let aggregate = StackAggregator().aggregate(stacks: [b, a, a, c, a, b, c])
        #expect(aggregate.stacks == [StackCount(frames: a, count: 3), StackCount(frames: b, count: 2),
                                     StackCount(frames: c, count: 2)])
        #expect(aggregate.sampleCount == 7)
    }

    @Test("the hot stack is the common prefix that most samples share, innermost first")
    func hotStackPrefix() {
        // main(0x100) → run(0x200) → work(0x300) → leaf pcs vary; 2 of 10 samples elsewhere.
        var stacks: [[Address]] = (0..<8).map { stack(0x400 + UInt64($0), 0x300, 0x200, 0x100) }
        stacks += [stack(0x500, 0x200, 0x100), stack(0x600, 0x100)]
        let aggregate = StackAggregator().aggregate(stacks: stacks)
        #expect(aggregate.hotStack == stack(0x300, 0x200, 0x100))
    }

    @Test("a frame shared by exactly half the samples is not hot (a strict majority is needed)")
    func evenSplit() {
        let stacks = [stack(0x10, 0x1), stack(0x10, 0x1), stack(0x20, 0x1), stack(0x20, 0x1)]
        #expect(StackAggregator().aggregate(stacks: stacks).hotStack == stack(0x1))
    }

    @Test("with no frame shared by most samples the most frequent stack is the hot stack")
    func fallback() {
        let stacks = [stack(1, 0xA), stack(1, 0xA), stack(2, 0xB), stack(3, 0xC)]
        #expect(StackAggregator().aggregate(stacks: stacks).hotStack == stack(1, 0xA))
    }

    @Test("identical samples make the whole stack hot; no samples, no hot stack")
    func identicalAndEmpty() {
        let s = stack(1, 2, 3)
        #expect(StackAggregator().aggregate(stacks: [s, s, s]).hotStack == s)
        #expect(StackAggregator().aggregate([]) == .empty)
    }

    @Test("stacks beyond the listing limit are counted as omitted")
    func omitted() {
        let stacks = (0..<10).map { stack(UInt64($0)) } + [stack(0), stack(0)]
        let aggregate = StackAggregator(maxStacks: 4).aggregate(stacks: stacks)
        #expect(aggregate.stacks.count == 4)
        #expect(aggregate.stacks[0] == StackCount(frames: stack(0), count: 3))
        #expect(aggregate.omittedStacks == 6)
        #expect(aggregate.omittedSamples == 6)
        #expect(aggregate.stacks.reduce(0) { $0 + $1.count } + aggregate.omittedSamples == aggregate.sampleCount)
    }
}

@Suite("Annealing filter and daily cap")
struct AnnealingAndCapTests {
    private func at(_ seconds: Double) -> MonotonicInstant { .milliseconds(seconds * 1000) }

    @Test("the window after a report is 1 period and grows 2, 3, 5, 8, 8 with each annealed repeat")
    func fibonacciBackoff() {
        var filter = AnnealingFilter<String>(periodMs: 1000)
        let result1 = filter.consider("s", start: at(0), end: at(3))
        #expect(result1 == .report)
        #expect(filter.currentBackoffPeriods == 1)
        var end = 3.0
        var windows: [Int] = []
        for _ in 0..<6 {
            // Each repeat starts just before the current window closes.
            let start = end + Double(filter.currentBackoffPeriods) - 0.01
            end = start + 2
            let result2 = filter.consider("s", start: at(start), end: at(end))
            #expect(result2 == .annealed)
            windows.append(filter.currentBackoffPeriods)
        }
        #expect(windows == [2, 3, 5, 8, 8, 8])
        // Staying hang-free for the whole 8-period window is a recovery.
        let result3 = filter.consider("s", start: at(end + 8), end: at(end + 10))
        #expect(result3 == .report)
        #expect(filter.currentBackoffPeriods == 1)
    }

    @Test("a different key is reported and resets the backoff; keyless hangs pass and change nothing")
    func keyChange() {
        var filter = AnnealingFilter<String>(periodMs: 1000)
        _ = filter.consider("s", start: at(0), end: at(1))
        _ = filter.consider("s", start: at(1.5), end: at(2))
        #expect(filter.currentBackoffPeriods == 2)
        let result4 = filter.consider(nil, start: at(2.1), end: at(3))
        #expect(result4 == .report)
        #expect(filter.currentBackoffPeriods == 2)
        let result5 = filter.consider("t", start: at(3.1), end: at(4))
        #expect(result5 == .report)
        #expect(filter.currentBackoffPeriods == 1)
        #expect(filter.lastReportedKey == "t")
        filter.reset()
        let result6 = filter.consider("t", start: at(4.1), end: at(5))
        #expect(result6 == .report)
    }

    @Test("the cap admits N per key per day and starts afresh at midnight in its time zone")
    func capDays() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        var cap = DailyReportCap<String>(limit: 2, timeZone: utc)
        let day = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00Z
        let result7 = cap.admit("a", at: day)
        #expect(result7)
        let result8 = cap.admit("a", at: day.addingTimeInterval(3600))
        #expect(result8)
        let result9 = cap.admit("a", at: day.addingTimeInterval(86_399))
        #expect(!result9)
        let result10 = cap.admit("b", at: day.addingTimeInterval(86_399))
        #expect(result10)
        #expect(cap.refusedOverLimit == 1)
        let result11 = cap.admit("a", at: day.addingTimeInterval(86_400))
        #expect(result11)
        #expect(cap.count(for: "a") == 1)
    }

    @Test("day boundaries follow the configured time zone")
    func capTimeZone() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))  // UTC+9, no DST
        var cap = DailyReportCap<String>(limit: 1, timeZone: tokyo)
        let beforeMidnightTokyo = Date(timeIntervalSince1970: 1_767_225_600 + 14 * 3600)  // 23:00 JST
        let result12 = cap.admit("a", at: beforeMidnightTokyo)
        #expect(result12)
        let result13 = cap.admit("a", at: beforeMidnightTokyo.addingTimeInterval(3599))
        #expect(!result13)
        let result14 = cap.admit("a", at: beforeMidnightTokyo.addingTimeInterval(3600))
        #expect(result14)
    }

    @Test("moving the wall clock back a day keeps the counts; too many keys are refused")
    func capRegressionAndKeys() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        var cap = DailyReportCap<Int>(limit: 1, timeZone: utc, maxKeys: 2)
        let day = Date(timeIntervalSince1970: 1_767_225_600)
        let result15 = cap.admit(1, at: day)
        #expect(result15)
        let result16 = cap.admit(1, at: day.addingTimeInterval(-86_400))
        #expect(!result16)
        #expect(cap.wallClockRegressions == 1)
        let result17 = cap.admit(2, at: day)
        #expect(result17)
        let result18 = cap.admit(3, at: day)
        #expect(!result18)
        #expect(cap.refusedTooManyKeys == 1)
    }
}
