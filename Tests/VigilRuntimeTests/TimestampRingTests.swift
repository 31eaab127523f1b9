import Testing
import VigilCore
import VigilRuntime

@Suite("Timestamp ring")
struct TimestampRingTests {
    @Test("drains in push order and empties")
    func fifo() throws {
        let ring = try #require(TimestampRing(capacity: 8))
        for index in 1...5 { ring.push(code: UInt32(index), instant: MonotonicInstant(nanoseconds: UInt64(index) * 10)) }
        var drained: [TimestampedCode] = []
        ring.drain { drained.append($0) }
        #expect(drained.map(\.code) == [1, 2, 3, 4, 5])
        #expect(drained.map(\.instant.nanoseconds) == [10, 20, 30, 40, 50])
        var again = 0
        ring.drain { _ in again += 1 }
        #expect(again == 0)
        #expect(ring.latest == TimestampedCode(code: 5, instant: MonotonicInstant(nanoseconds: 50)))
    }

    @Test("a full ring drops new records and counts them instead of blocking the producer")
    func dropsWhenFull() throws {
        let ring = try #require(TimestampRing(capacity: 4))
        for index in 1...7 { ring.push(code: UInt32(index), instant: MonotonicInstant(nanoseconds: UInt64(index))) }
        var drained: [UInt32] = []
        ring.drain { drained.append($0.code) }
        #expect(drained == [1, 2, 3, 4])
        #expect(ring.dropped == 3)
    }

    @Test("drains more records than its scratch buffer holds in one call")
    func largeDrain() throws {
        let ring = try #require(TimestampRing(capacity: 4096))
        for index in 0..<3000 { ring.push(code: UInt32(index), instant: MonotonicInstant(nanoseconds: UInt64(index) + 1)) }
        var count = 0
        var inOrder = true
        ring.drain { record in
            if record.code != UInt32(count) { inOrder = false }
            count += 1
        }
        #expect(count == 3000)
        #expect(inOrder)
    }

    @Test("rejects impossible capacities", arguments: [0, -1, (1 << 20) + 1])
    func rejectsCapacity(_ capacity: Int) {
        #expect(TimestampRing(capacity: capacity) == nil)
    }
}
