import Foundation
import Testing
import VigilCore
import VigilTestSupport

/// Inputs the fuzz targets (Fuzz/, docs/fuzzing.md) found, pinned so the fixes stay.
@Suite("Inputs found by fuzzing (VigilCore)")
struct FuzzRegressionTests {
    @Test("a hex address with a sign is refused like any other non-hex character",
          arguments: ["+ff", "-0", "0x+1", "0X-0", "+FFFF", " ff", "ff "])
    func signedHexAddressIsRefused(text: String) {
        #expect(Address(hex: text) == nil)
    }

    @Test("an event time finer than a millisecond is decoded on the millisecond it encodes back to")
    func subMillisecondTimeRoundTrips() throws {
        let event = SampleEvents.make(.network, index: 4)
        var object = try #require(JSONSerialization.jsonObject(with: EventJSON.encode(event)) as? [String: Any])
        object["time"] = "2026-11-29T20:48:43.12253Z"
        let decoded = try EventJSON.decode(JSONSerialization.data(withJSONObject: object))
        #expect(decoded.time == Timestamp.parse("2026-11-29T20:48:43.123Z"))
        #expect(try EventJSON.decode(EventJSON.encode(decoded)) == decoded)
        let batch = try EventJSON.decodeBatch(JSONSerialization.data(withJSONObject: [object]))
        #expect(try batch.first?.get() == decoded)
    }

    @Test("an event time outside the years 0000 to 9999 UTC is refused with its reason, not clamped",
          arguments: ["0000-01-01T00:00:00+01:00", "9999-12-31T23:59:59.9996Z", "9999-12-31T23:30:00-01:00"])
    func outOfRangeTimeIsRefused(time: String) throws {
        var object = try #require(JSONSerialization.jsonObject(with: EventJSON.encode(SampleEvents.make(.log, index: 1))) as? [String: Any])
        object["time"] = time
        let results = try EventJSON.decodeBatch(JSONSerialization.data(withJSONObject: [object]))
        guard case .failure(let failure)? = results.first else {
            Issue.record("\(time) was accepted")
            return
        }
        #expect(failure.reason.contains("outside the years 0000 to 9999"), "\(failure.reason)")
    }

    @Test("an event id or session that is not a 36-character UUID is refused, though Foundation's parser takes it",
          arguments: ["8E1B2C3D--000-4000-8000-000000000003", "8E1B2C3D-+000-4000-8000-000000000003",
                      "8E1B2C3D-0x00-4000-8000-000000000003", "8E1B2C3D- 0 0-4000-8000-000000000003"])
    func laxUUIDIsRefused(text: String) throws {
        for field in ["id", "session"] {
            var object = try #require(JSONSerialization.jsonObject(with: EventJSON.encode(SampleEvents.make(.log, index: 2)))
                                      as? [String: Any])
            object[field] = text
            let results = try EventJSON.decodeBatch(JSONSerialization.data(withJSONObject: [object]))
            guard case .failure(let failure)? = results.first else {
                Issue.record("\(field) \(text) was accepted")
                continue
            }
            #expect(failure.reason == "[0].\(field): Attempted to decode UUID from invalid UUID string.")
        }
    }

    @Test("an event id in lowercase is still read")
    func lowercaseUUIDIsRead() throws {
        let event = SampleEvents.make(.log, index: 2)
        var object = try #require(JSONSerialization.jsonObject(with: EventJSON.encode(event)) as? [String: Any])
        object["id"] = event.id.uuidString.lowercased()
        #expect(try EventJSON.decode(JSONSerialization.data(withJSONObject: object)).id == event.id)
    }

    @Test("schemaDate keeps a date on the millisecond that format and parse agree on")
    func schemaDateIsAFixedPoint() throws {
        for seconds in [1_795_985_323.12253, -0.0004, -62_167_219_200.0, 253_402_300_799.9994, 0.0005] {
            let kept = try #require(Timestamp.schemaDate(Date(timeIntervalSince1970: seconds)))
            #expect(Timestamp.parse(Timestamp.format(kept)) == kept, "\(seconds)")
        }
        #expect(Timestamp.schemaDate(Date(timeIntervalSince1970: -62_167_219_200.001)) == nil)
        #expect(Timestamp.schemaDate(Date(timeIntervalSince1970: .nan)) == nil)
    }
}
