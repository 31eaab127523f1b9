import Foundation
import Testing
@testable import VigilServer

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("strings with quotes, backslashes, control bytes and non-ASCII text read back as written", arguments: [
        "", "plain", #"{"a":"b\"c","d":[1,2]}"#, "\\", "\"", "tab\there\nline\r\u{0}\u{1F}end", "é😀 \"mixed\" \\ runs",
        String(repeating: #"{"k":"v"},"#, count: 300),
    ])
    func escapesStrings(_ text: String) throws {
        var writer = JSONWriter()
        writer.beginArray()
        writer.string(text)
        writer.string("after")
        writer.endArray()
        let decoded = try JSONSerialization.jsonObject(with: writer.data) as? [String]
        #expect(decoded == [text, "after"])
    }
}
