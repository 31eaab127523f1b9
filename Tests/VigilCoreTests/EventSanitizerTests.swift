import Foundation
import Testing
import VigilCore
import VigilTestSupport

@Suite("Event sanitizer")
struct EventSanitizerTests {
    @Test("a clean event is left unchanged and reports nothing", arguments: EventType.allCases)
    func cleanEventUnchanged(type: EventType) {
        let event = SampleEvents.make(type, index: 5)
        let (sanitized, report) = EventSanitizer().sanitized(event)
        #expect(sanitized == event)
        #expect(!report.changed)
    }

    @Test("control characters, separators and bidi overrides are removed from single-line fields")
    func singleLineCleaning() {
        let dirty = "Check\u{0}out\u{7}View\u{1B}[31m\u{2028}Controller\u{202E}\u{85}"
        #expect(EventSanitizer.clean(dirty, maxBytes: 1024, multiline: false) == "CheckoutView[31m Controller")
        #expect(EventSanitizer.clean("tab\there\nnewline", maxBytes: 1024, multiline: false) == "tabherenewline")
    }

    @Test("free text keeps newlines and tabs and turns U+2028/U+2029 into newlines")
    func multilineCleaning() {
        let text = "Fatal error:\tIndex out of range\u{2029}at line 3\u{0}"
        #expect(EventSanitizer.clean(text, maxBytes: 1024, multiline: true) == "Fatal error:\tIndex out of range\nat line 3")
    }

    @Test("strings are cut to their byte limit on a scalar boundary")
    func truncation() {
        let text = String(repeating: "é", count: 10)  // 2 bytes each
        let cut = EventSanitizer.clean(text, maxBytes: 7, multiline: false)
        #expect(cut == "ééé")
        #expect(cut.utf8.count <= 7)
        #expect(EventSanitizer.clean("🙂🙂", maxBytes: 5, multiline: false) == "🙂")
    }

    @Test("invalid UTF-8 is replaced, valid input is returned as is")
    func utf8Repair() {
        let valid = Data("héllo".utf8)
        #expect(EventSanitizer.repairUTF8(valid) == valid)
        let invalid = Data([0x61, 0xFF, 0x62, 0xC3])
        #expect(String(decoding: EventSanitizer.repairUTF8(invalid), as: UTF8.self) == "a\u{FFFD}b\u{FFFD}")
    }

    @Test("a repair is seen even when it keeps the length, and U+FFFD already in valid input is kept")
    func utf8RepairEdges() {
        #expect(EventSanitizer.repairUTF8(Data()) == Data())
        let replacementCharacter = Data("a\u{FFFD}b".utf8)
        #expect(EventSanitizer.repairUTF8(replacementCharacter) == replacementCharacter)
        // A truncated 4-byte sequence (3 bytes) becomes one U+FFFD (3 bytes): same length, other bytes.
        let truncated = Data([0xF0, 0x90, 0x80, 0x61])
        let repaired = EventSanitizer.repairUTF8(truncated)
        #expect(repaired.count == truncated.count)
        #expect(repaired == Data("\u{FFFD}a".utf8))
        // A surrogate encoded in UTF-8 is ill-formed, one U+FFFD per byte.
        #expect(EventSanitizer.repairUTF8(Data([0xED, 0xA0, 0x80])) == Data("\u{FFFD}\u{FFFD}\u{FFFD}".utf8))
    }

    @Test("every string and collection of an event is bounded")
    func boundsEverything() {
        var limits = SanitizerLimits()
        limits.maxLineBytes = 16
        limits.maxFramesPerStack = 4
        limits.maxStacks = 2
        limits.maxThreads = 3
        limits.maxTags = 2
        limits.maxImages = 1
        let sanitizer = EventSanitizer(limits: limits)
        var hang = SampleEvents.make(.hang, index: 0)
        hang.context.page = String(repeating: "P", count: 100)
        hang.tags = ["a": "1", "b": "2", "c": "3", "d\u{0}": "4"]
        guard case .hang(var body) = hang.payload else { return }
        body.stacks = Array(repeating: StackCount(frames: (0..<10).map { Address(UInt64($0)) }, count: 1), count: 5)
        hang.payload = .hang(body)
        let report = sanitizer.sanitize(&hang)
        #expect(report.changed)
        #expect(hang.context.page == String(repeating: "P", count: 16))
        #expect(hang.tags == ["a": "1", "b": "2"])
        #expect(hang.images?.count == 1)
        guard case .hang(let cleaned) = hang.payload else { return }
        #expect(cleaned.stacks.count == 2)
        #expect(cleaned.stacks.allSatisfy { $0.frames.count == 4 })

        var crash = SampleEvents.make(.crash, index: 0)
        guard case .crash(var crashBody) = crash.payload else { return }
        crashBody.threads = Array(repeating: CrashThread(crashed: false, name: "w\u{1}", frames: []), count: 10)
        crashBody.exception = CrashException(type: "T", reason: String(repeating: "r", count: 100_000))
        crash.payload = .crash(crashBody)
        sanitizer.sanitize(&crash)
        guard case .crash(let cleanedCrash) = crash.payload else { return }
        #expect(cleanedCrash.threads.count == 3)
        #expect(cleanedCrash.threads.allSatisfy { $0.name == "w" })
        #expect(cleanedCrash.exception?.reason?.utf8.count == limits.maxTextBytes)
    }

    @Test("non-finite numbers become zero, so the event can be encoded as JSON")
    func nonFiniteNumbers() throws {
        var event = SampleEvents.make(.network, index: 0)
        guard case .network(var body) = event.payload else { return }
        body.timings.total = .nan
        body.timings.dns = .infinity
        event.payload = .network(body)
        let report = EventSanitizer().sanitize(&event)
        #expect(report.numbersReplaced == 2)
        let decoded = try EventJSON.decode(EventJSON.encode(event))
        #expect(decoded == event)
    }

    @Test("span attributes are cleaned, bounded and keep their types")
    func spanAttributes() {
        var limits = SanitizerLimits()
        limits.maxAttributes = 2
        var event = SampleEvents.make(.span, index: 0)
        guard case .span(var body) = event.payload else { return }
        body.attributes = ["a\u{0}": "x\u{2028}y", "b": 1, "c": .double(.nan)]
        event.payload = .span(body)
        EventSanitizer(limits: limits).sanitize(&event)
        guard case .span(let cleaned) = event.payload else { return }
        #expect(cleaned.attributes == ["a": "x\ny", "b": 1])
    }
}
