import Foundation
import Testing
@testable import VigilReports

/// The report JSON parser: exact 64-bit numbers, key order, errors with place, recovery.
@Suite("JSON parser")
struct JSONParserTests {
    @Test("numbers keep their exact text; 64-bit values survive; order and duplicates are kept")
    func values() throws {
        let text = #"{"b":18446744073709551615,"a":[1.5e3,-0,true,null,"x\u00e9\ud83d\ude00\/"],"b":2}"#
        let value = try JSONParser.parse(text).value
        #expect(value["b"]?.uint64 == UInt64.max)
        #expect(value.members?.map(\.key) == ["b", "a", "b"])
        #expect(value["a"]?[0]?.double == 1500)
        #expect(value["a"]?[0]?.uint64 == 1500)
        #expect(value["a"]?[1]?.int == 0)
        #expect(value["a"]?[2]?.bool == true)
        #expect(value["a"]?[3] == .null)
        #expect(value["a"]?[4]?.string == "xé😀/")
        #expect(JSONWriter().compact(value) == #"{"b":18446744073709551615,"a":[1.5e3,-0,true,null,"xé😀/"],"b":2}"#)
        #expect(JSONValue.number("1e400").double == nil)
        #expect(JSONValue.number("18446744073709551616").uint64 == nil)
        #expect(JSONValue.number("-1").uint64 == nil)
        #expect(JSONValue.string("0x8badf00d").uint64 == 0x8BAD_F00D)
    }

    @Test("errors name the line, column and key path")
    func errors() {
        let text = "{\n  \"threads\" : [\n    {\"frames\" : [1, 2, }\n  ]\n}"
        let error = #expect(throws: JSONParseError.self) { _ = try JSONParser.parse(text) }
        #expect(error?.line == 3)
        #expect(error?.keyPath == "threads[0].frames[2]")
        #expect(throws: JSONParseError.self) { _ = try JSONParser.parse("{\"a\": tru}") }
        #expect(throws: JSONParseError.self) { _ = try JSONParser.parse("{\"a\": 01}") }
        #expect(throws: JSONParseError.self) { _ = try JSONParser.parse("{\"a\": \"\\q\"}") }
        #expect(throws: JSONParseError.self) { _ = try JSONParser.parse("{} x") }
        #expect(throws: JSONParseError.self) { _ = try JSONParser.parse("") }
        #expect(throws: JSONParseError.self) { _ = try JSONParser.parse(String(repeating: "[", count: 600)) }
    }

    @Test("truncated input is recovered up to the last complete value when asked")
    func truncation() throws {
        let options = JSONParseOptions(recoversTruncation: true)
        let result = try JSONParser.parse(#"{"a":[1,2,{"b":"c"},{"d":12"#, options: options)
        #expect(result.truncated)
        #expect(result.value == .object([JSONMember("a", .array([.number("1"), .number("2"), .object([JSONMember("b", .string("c"))]), .object([])]))]))
        for cut in [#"{"a":"unterminated"#, #"{"a":tr"#, #"{"a":[1,2,3"#, #"{"key"#, #"{"k":"#] {
            #expect(try JSONParser.parse(cut, options: options).truncated, "\(cut)")
        }
        #expect(throws: JSONParseError.self) { _ = try JSONParser.parse(#""abc"#, options: options) }
    }

    @Test("too-deep containers are skipped as null when asked, with their path")
    func depth() throws {
        let text = #"{"a":[[[[["deep",{"x":1}]]]]],"b":2}"#
        let result = try JSONParser.parse(text, options: JSONParseOptions(maxDepth: 3, skipsTooDeep: true))
        #expect(result.value["b"]?.int == 2)
        #expect(result.value["a"]?[0]?[0] == .null)
        #expect(result.skippedCount == 1)
        #expect(result.skippedPaths == ["a[0][0]"])
        // Brackets inside strings do not confuse the skipping.
        let tricky = try JSONParser.parse(#"{"a":[["]]]\"[[",1]],"b":3}"#, options: JSONParseOptions(maxDepth: 2, skipsTooDeep: true))
        #expect(tricky.value["b"]?.int == 3)
    }
}
