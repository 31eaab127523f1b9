import Foundation
import Testing
import VigilCore

@Suite("Clocks")
struct ClockTests {
    @Test("a test clock moves only when told, both readings together")
    func testClockAdvances() {
        let clock = TestClock()
        let m0 = clock.monotonicNow()
        let w0 = clock.wallNow()
        #expect(clock.monotonicNow() == m0)
        clock.advance(byMilliseconds: 250)
        #expect(clock.monotonicNow().milliseconds(since: m0) == 250)
        #expect(clock.wallNow().timeIntervalSince(w0) == 0.25)
    }

    @Test("wall time of an earlier instant subtracts the elapsed monotonic time")
    func wallTimeOfInstant() {
        let clock = TestClock()
        let then = clock.monotonicNow()
        let wallThen = clock.wallNow()
        clock.advance(byMilliseconds: 1500)
        #expect(abs(clock.wallTime(of: then).timeIntervalSince(wallThen)) < 1e-9)
    }

    @Test("instant arithmetic saturates at the origin and signs differences")
    func instantArithmetic() {
        let a = MonotonicInstant(nanoseconds: 1_000)
        #expect(a.advanced(byNanoseconds: -5_000).nanoseconds == 0)
        #expect(a.advanced(byMilliseconds: 1).nanoseconds == 1_001_000)
        let b = MonotonicInstant.milliseconds(2)
        #expect(b.nanoseconds(since: a) == 1_999_000)
        #expect(a.nanoseconds(since: b) == -1_999_000)
    }

    @Test("moving an instant by an absurd amount saturates at the ends of the clock instead of trapping or wrapping",
          arguments: [Double.infinity, 1e300, 2e13, Double.nan, -Double.infinity, -1e300])
    func instantArithmeticSaturates(milliseconds: Double) {
        let a = MonotonicInstant(nanoseconds: 1_000)
        let moved = a.advanced(byMilliseconds: milliseconds)
        if milliseconds.isNaN {
            #expect(moved == a)
        } else {
            #expect(moved.nanoseconds == (milliseconds > 0 ? UInt64.max : 0))
        }
        #expect(MonotonicInstant(nanoseconds: UInt64.max - 1).advanced(byNanoseconds: 10).nanoseconds == UInt64.max)
        #expect(MonotonicInstant.milliseconds(milliseconds).nanoseconds == (milliseconds > 0 && !milliseconds.isNaN ? UInt64.max : 0))
    }

    @Test("the system clock's monotonic reading never goes back")
    func systemClockMonotonic() {
        let clock = SystemClock()
        var last = clock.monotonicNow()
        for _ in 0..<1000 {
            let now = clock.monotonicNow()
            #expect(now >= last)
            last = now
        }
    }
}
