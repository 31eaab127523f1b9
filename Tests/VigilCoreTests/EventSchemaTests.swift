import Foundation
import Testing
import VigilCore
import VigilTestSupport

@Suite("Event schema v1")
struct EventSchemaTests {
    @Test("every event type survives an encode/decode round trip unchanged", arguments: EventType.allCases)
    func roundTrip(type: EventType) throws {
        let event = SampleEvents.make(type, index: 3)
        let data = try EventJSON.encode(event)
        let decoded = try EventJSON.decode(data)
        #expect(decoded == event)
        #expect(decoded.type == type)
    }

    @Test("the envelope is written with the field names of the schema")
    func envelopeFieldNames() throws {
        let event = SampleEvents.make(.hang, index: 0)
        let object = try JSONSerialization.jsonObject(with: EventJSON.encode(event)) as! [String: Any]
        #expect(Set(object.keys) == ["schema", "id", "type", "time", "session", "app", "device", "context", "tags",
                                     "images", "payload"])
        #expect(object["schema"] as? Int == 1)
        #expect(object["type"] as? String == "hang")
        #expect(object["time"] as? String == "2026-11-29T20:48:43.123Z")
        let images = object["images"] as! [[String: Any]]
        #expect(images[0]["loadAddress"] as? String == "0x102230000")
        let payload = object["payload"] as! [String: Any]
        for key in ["start", "end", "durationMs", "kind", "thresholdMs", "runLoopActivity", "stacks", "cpuPercent", "memoryBytes"] {
            #expect(payload[key] != nil, "hang payload lacks \(key)")
        }
        let stacks = payload["stacks"] as! [[String: Any]]
        #expect(stacks[0]["count"] as? Int == 40)
        #expect((stacks[0]["frames"] as? [String])?.first == "0x102231a40")
    }

    @Test("payload field names follow the schema for every type")
    func payloadFieldNames() throws {
        let expected: [EventType: Set<String>] = [
            .frames: ["page", "windowStart", "windowEnd", "frames", "fps", "refreshRate", "dropped", "slow", "severe", "frozen"],
            .launch: ["kind", "processStart", "preMainMs", "mainToDidFinishMs", "ttidMs", "ttfdMs", "pageFaults"],
            .network: ["method", "urlTemplate", "host", "status", "bytesSent", "bytesReceived", "timings",
                       "reusedConnection", "protocol"],
            .crash: ["signal", "code", "faultAddress", "threads", "registers", "fatalHang"],
            .span: ["traceId", "spanId", "name", "start", "end", "status", "attributes"],
        ]
        for (type, keys) in expected {
            let object = try JSONSerialization.jsonObject(with: EventJSON.encode(SampleEvents.make(type, index: 1))) as! [String: Any]
            let payload = object["payload"] as! [String: Any]
            #expect(keys.isSubset(of: Set(payload.keys)), "\(type) payload has \(payload.keys.sorted())")
        }
        let network = try JSONSerialization.jsonObject(with: EventJSON.encode(SampleEvents.make(.network, index: 1))) as! [String: Any]
        let timings = (network["payload"] as! [String: Any])["timings"] as! [String: Any]
        #expect(Set(timings.keys) == ["dns", "connect", "tls", "request", "ttfb", "response", "total"])
    }

    @Test("unknown fields at every level are ignored on read")
    func unknownFieldsIgnored() throws {
        let json = """
        {"schema":1,"id":"8E1B2C3D-0000-4000-8000-000000000001","type":"log","time":"2026-11-29T20:48:43.123Z",
         "session":"0F4B5C4E-7D33-4C4A-9B8E-2F7D4E1C0A01","futureTopLevel":{"x":[1,2]},
         "app":{"id":"a","version":"1","build":"2","flavor":"pro"},
         "device":{"model":"m","os":"iOS","osVersion":"18","arch":"arm64","thermal":"nominal"},
         "payload":{"level":"info","message":"hi","newField":true}}
        """
        let event = try EventJSON.decode(Data(json.utf8))
        #expect(event.type == .log)
        #expect(event.context == EventContext())
        #expect(event.tags.isEmpty)
        guard case .log(let body) = event.payload else { Issue.record("wrong payload"); return }
        #expect(body.message == "hi")
    }

    @Test("an unknown type, a missing field and a bad timestamp are rejected with the key path")
    func rejectsMalformedEvents() throws {
        let base = try JSONSerialization.jsonObject(with: EventJSON.encode(SampleEvents.make(.network, index: 0))) as! [String: Any]
        func attempt(_ mutate: (inout [String: Any]) -> Void) -> String {
            var copy = base
            mutate(&copy)
            let data = try! JSONSerialization.data(withJSONObject: copy)
            do {
                _ = try EventJSON.decode(data)
                return "accepted"
            } catch {
                return EventJSON.describe(error)
            }
        }
        #expect(attempt { $0["type"] = "telepathy" }.contains("unknown event type"))
        #expect(attempt { $0["time"] = "yesterday" }.contains("time"))
        #expect(attempt { $0.removeValue(forKey: "session") }.contains("session"))
        #expect(attempt {
            var payload = $0["payload"] as! [String: Any]
            payload["bytesSent"] = "many"
            $0["payload"] = payload
        }.contains("payload.bytesSent"))
        #expect(attempt { $0["schema"] = 0 }.contains("schema"))
    }

    @Test("a batch decodes each event on its own, as an array or as JSON lines")
    func batchDecoding() throws {
        let events = SampleEvents.oneOfEach()
        var objects = try events.map { try JSONSerialization.jsonObject(with: EventJSON.encode($0)) }
        objects.insert(["id": "not-a-uuid-but-named", "type": "hang"], at: 2)
        let array = try JSONSerialization.data(withJSONObject: objects)
        let results = try EventJSON.decodeBatch(array)
        #expect(results.count == events.count + 1)
        #expect(results.compactMap { try? $0.get() } == events)
        guard case .failure(let failure) = results[2] else { Issue.record("slot 2 should fail"); return }
        #expect(failure.index == 2)
        #expect(failure.id == "not-a-uuid-but-named")

        var lines = try EventJSON.encodeLines(events)
        lines.append(Data("{broken\n\n".utf8))
        let lineResults = try EventJSON.decodeBatch(lines)
        #expect(lineResults.count == events.count + 1)
        #expect(lineResults.prefix(events.count).compactMap { try? $0.get() } == events)
        #expect((try? lineResults.last!.get()) == nil)

        #expect(throws: EventBatchError.self) { try EventJSON.decodeBatch(Data("[1, 2".utf8)) }
        #expect(try EventJSON.decodeBatch(Data("  \n".utf8)).isEmpty)
    }

    @Test("addresses are hex strings on the wire and accept integers on read")
    func addresses() throws {
        #expect(Address(hex: "0x1A2b") == Address(0x1a2b))
        #expect(Address(hex: "ff") == Address(255))
        #expect(Address(hex: "0x") == nil)
        #expect(Address(hex: "0x1ffffffffffffffff") == nil)
        #expect(Address(hex: "0xzz") == nil)
        let decoded = try JSONDecoder().decode([Address].self, from: Data(#"["0x10", 32]"#.utf8))
        #expect(decoded == [Address(16), Address(32)])
        #expect(String(decoding: try JSONEncoder().encode([Address(0xdead)]), as: UTF8.self) == #"["0xdead"]"#)
        let image = SampleEvents.mainImage
        #expect(image.contains(Address(0x1_0223_0000)))
        #expect(image.contains(Address(0x1_0223_7fff)))
        #expect(!image.contains(Address(0x1_0223_8000)))
        #expect(!image.contains(Address(0x1_0222_ffff)))
    }

    @Test("attribute values keep their JSON type")
    func attributeValues() throws {
        let json = #"{"s":"x","i":42,"d":1.5,"b":true}"#
        let decoded = try JSONDecoder().decode([String: AttributeValue].self, from: Data(json.utf8))
        #expect(decoded == ["s": .string("x"), "i": .int(42), "d": .double(1.5), "b": .bool(true)])
        let again = try JSONDecoder().decode([String: AttributeValue].self, from: JSONEncoder().encode(decoded))
        #expect(again == decoded)
    }
}
