import Testing
import VigilCore

@Suite("Trace identifiers")
struct TraceIdentifierTests {
    @Test("ids are lowercase hex of W3C length and reproducible from a seed")
    func seededIds() {
        var a = SeededGenerator(seed: 42)
        var b = SeededGenerator(seed: 42)
        let trace = TraceIdentifier.traceId(using: &a)
        let span = TraceIdentifier.spanId(using: &a)
        #expect(TraceIdentifier.isValid(trace, hexDigits: 32))
        #expect(TraceIdentifier.isValid(span, hexDigits: 16))
        #expect(TraceIdentifier.traceId(using: &b) == trace)
        #expect(TraceIdentifier.spanId(using: &b) == span)
    }

    @Test("validation rejects uppercase, wrong length and all-zero ids")
    func validation() {
        #expect(!TraceIdentifier.isValid("00000000000000000000000000000000", hexDigits: 32))
        #expect(!TraceIdentifier.isValid("4BF92F3577B34DA6A3CE929D0E0E4736", hexDigits: 32))
        #expect(!TraceIdentifier.isValid("4bf92f", hexDigits: 32))
        #expect(TraceIdentifier.isValid("4bf92f3577b34da6a3ce929d0e0e4736", hexDigits: 32))
    }
}
