import Foundation
import Testing
import VigilCore

@Suite("RFC 3339 timestamps")
struct TimestampTests {
    @Test("formats UTC with milliseconds")
    func formats() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_795_985_323.123)) == "2026-11-29T20:48:43.123Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
    }

    @Test("parses fractions of any length, Z and offsets")
    func parses() throws {
        #expect(Timestamp.parse("2026-11-29T20:48:43.123Z") == Date(timeIntervalSince1970: 1_795_985_323.123))
        #expect(Timestamp.parse("2026-11-29T20:48:43Z") == Date(timeIntervalSince1970: 1_795_985_323))
        #expect(Timestamp.parse("2026-11-29T21:48:43.5+01:00") == Date(timeIntervalSince1970: 1_795_985_323.5))
        let micro = try #require(Timestamp.parse("2026-11-29T20:48:43.123456789Z"))
        #expect(abs(micro.timeIntervalSince1970 - 1_795_985_323.123456) < 1e-6)
    }

    @Test("rejects malformed timestamps without trapping",
          arguments: ["", "2026-11-29", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-29T24:00:00Z",
                      "2026-11-29T20:48:43.Z", "2026-11-29T20:48:43", "2026-11-29T20:48:43Zjunk",
                      "2026-11-29T20:48:43+1:00", "２０２６-11-29T20:48:43Z", String(repeating: "9", count: 100)])
    func rejects(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test("format then parse is the identity at millisecond precision over many dates")
    func roundTrip() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<5000 {
            let millis = Int64(generator.next() % 253_402_300_799_999)
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            let text = Timestamp.format(date)
            let back = Timestamp.parse(text)
            #expect(back.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == millis, "\(text)")
        }
    }
}
