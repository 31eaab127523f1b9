import Testing
import VigilCore

@Suite("W3C traceparent")
struct TraceParentTests {
    @Test("a generated header parses back to the same ids and flags")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 3)
        for sampled in [true, false] {
            let parent = TraceParent.random(sampled: sampled, using: &generator)
            #expect(parent.header.count == 55)
            let parsed = try TraceParent.parse(parent.header)
            #expect(parsed == parent)
            #expect(parsed.sampled == sampled)
        }
    }

    @Test("the specification's example is read field by field")
    func example() throws {
        let parsed = try TraceParent.parse(" 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\t")
        #expect(parsed.traceId == "0af7651916cd43dd8448eb211c80319c")
        #expect(parsed.parentId == "b7ad6b7169203331")
        #expect(parsed.sampled)
    }

    @Test("a later version is read by its first four fields")
    func futureVersion() throws {
        let parsed = try TraceParent.parse("cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03-extra")
        #expect(parsed.flags == 3)
        #expect(parsed.header == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03")
    }

    @Test("invalid values are refused with the reason", arguments: [
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331", TraceParentError.wrongLength(52)),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-", .wrongLength(56)),
        ("ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", .badField("version")),
        ("0g-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", .badField("version")),
        ("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", .badField("trace-id")),
        ("00-00000000000000000000000000000000-b7ad6b7169203331-01", .badField("trace-id")),
        ("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", .badField("parent-id")),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0x", .badField("trace-flags")),
        ("00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", .badSeparator),
        ("cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x", .badField("version")),
    ])
    func invalid(value: String, expected: TraceParentError) {
        #expect(throws: expected) { try TraceParent.parse(value) }
        #expect(TraceParent(header: value) == nil)
    }

    @Test("a child keeps the trace and gets a new span id")
    func child() {
        var generator = SeededGenerator(seed: 9)
        let parent = TraceParent.random(using: &generator)
        let child = parent.child(using: &generator)
        #expect(child.traceId == parent.traceId)
        #expect(child.parentId != parent.parentId)
        #expect(TraceIdentifier.isValid(child.parentId, hexDigits: 16))
    }
}
