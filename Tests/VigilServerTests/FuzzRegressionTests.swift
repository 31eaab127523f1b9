import Foundation
import Testing
import VigilCore
import VigilServer
import VigilTestSupport

/// Inputs the fuzz targets (Fuzz/, docs/fuzzing.md) found, pinned so the fixes stay.
@Suite("Inputs found by fuzzing (VigilServer)")
struct FuzzRegressionTests {
    private func body(time: String) throws -> Data {
        var object = try #require(JSONSerialization.jsonObject(with: EventJSON.encode(SampleEvents.make(.network, index: 4)))
                                  as? [String: Any])
        object["time"] = time
        return try JSONSerialization.data(withJSONObject: [object])
    }

    @Test("the server's decoder keeps a sub-millisecond event time on the millisecond, as EventJSON does")
    func subMillisecondTimeAgreesWithEventJSON() throws {
        let data = try body(time: "2026-11-29T20:48:43.12253Z")
        let server = try #require(try EventBatchDecoder.decode(data).first?.get().event)
        let reference = try #require(try EventJSON.decodeBatch(data).first?.get())
        #expect(server == reference)
        #expect(server.time == Timestamp.parse("2026-11-29T20:48:43.123Z"))
    }

    @Test("a repeated member name is read as its first value by both decoders")
    func repeatedMemberReadsTheFirstValue() throws {
        let clean = try String(decoding: body(time: "2026-11-29T20:48:43.123Z"), as: UTF8.self)
        let repeated = clean.replacingOccurrences(of: #""arch":"arm64""#, with: #""arch":"18.1","arch":"arm64""#)
        #expect(repeated != clean)
        let data = Data(repeated.utf8)
        let server = try #require(try EventBatchDecoder.decode(data).first?.get().event)
        let reference = try #require(try EventJSON.decodeBatch(data).first?.get())
        #expect(server.device.arch == "18.1")
        #expect(server == reference)
    }

    @Test("the server's decoder refuses an event time outside the years 0000 to 9999 UTC, as EventJSON does")
    func outOfRangeTimeIsRefused() throws {
        let data = try body(time: "0000-01-01T00:00:00+01:00")
        guard case .failure(let rejection)? = try EventBatchDecoder.decode(data).first else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.reason.contains("outside the years 0000 to 9999"), "\(rejection.reason)")
        #expect((try? EventJSON.decodeBatch(data).first?.get()) == nil)
    }
}
