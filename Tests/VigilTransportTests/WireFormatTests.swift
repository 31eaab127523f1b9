import Foundation
import Testing
import VigilTestSupport
import VigilTransport

@Suite("Transport wire formats: gzip and the ingest answer")
struct WireFormatTests {
    @Test("gzip round-trips, and decompression refuses bombs, corruption and truncation")
    func gzip() throws {
        let text = Data(String(repeating: "{\"type\":\"hang\",\"durationMs\":2500}\n", count: 2000).utf8)
        let compressed = try Gzip.compress(text)
        #expect(compressed.prefix(2) == Data([0x1F, 0x8B]))
        #expect(compressed.count < text.count / 10)
        #expect(try Gzip.decompress(compressed, limit: text.count) == text)
        #expect(try Gzip.decompress(try Gzip.compress(Data()), limit: 10) == Data())
        #expect(throws: GzipError.self) { try Gzip.decompress(compressed, limit: text.count - 1) }
        #expect(throws: GzipError.self) { try Gzip.decompress(compressed.prefix(compressed.count / 2), limit: 1 << 20) }
        var damaged = compressed
        damaged[damaged.count / 2] ^= 0xFF
        #expect(throws: GzipError.self) { try Gzip.decompress(damaged, limit: 1 << 20) }
        #expect(throws: GzipError.self) { try Gzip.decompress(Data("plain text".utf8), limit: 1 << 20) }
    }

    @Test("the documented answer is read; rejections without reasons get one")
    func ingestAnswer() throws {
        let body = """
            {"accepted": ["A", "B"], "rejected": [{"index": 3, "id": null, "reason": "payload.durationMs: expected Double"},
                                                   {"index": 4}]}
            """
        let answer = try IngestResponse.parse(Data(body.utf8))
        #expect(answer.accepted == ["A", "B"])
        #expect(answer.rejected == [IngestResponse.Rejection(index: 3, id: nil, reason: "payload.durationMs: expected Double"),
                                    IngestResponse.Rejection(index: 4, id: nil, reason: "no reason given")])
        #expect(try IngestResponse.parse(Data("{\"accepted\": []}".utf8)).rejected.isEmpty)
    }

    @Test("HTML, empty and wrong-shape answers are typed errors",
          arguments: [("", "empty"), ("  \r\n", "empty"), ("<!doctype html><p>Bad gateway", "notJSON"),
                      ("[]", "wrongShape"), ("{\"accepted\": \"A\"}", "wrongShape"), ("{\"rejected\": []}", "wrongShape"),
                      ("{\"accepted\": [1]}", "wrongShape"), ("{\"accepted\": [], \"rejected\": [5]}", "wrongShape")])
    func badAnswers(body: String, kind: String) {
        do {
            _ = try IngestResponse.parse(Data(body.utf8))
            Issue.record("expected an error for \(body)")
        } catch {
            switch error {
            case .empty: #expect(kind == "empty")
            case .notJSON: #expect(kind == "notJSON")
            case .wrongShape: #expect(kind == "wrongShape")
            case .tooLarge: Issue.record("unexpected tooLarge")
            }
        }
    }
}

@Suite("Retry-After values")
struct RetryAfterTests {
    @Test("seconds and IMF-fixdate HTTP dates are read; anything else is nil",
          arguments: [("120", 120.0), ("0", 0), ("1.5", 1.5), ("Thu, 01 Jan 2026 00:02:00 GMT", 120), ("Thu, 01 Jan 2026 00:00:00 GMT", 0),
                      ("Wed, 31 Dec 2025 23:00:00 GMT", 0)])
    func reads(text: String, expected: Double) {
        #expect(RetryAfter.seconds(text, now: Date(timeIntervalSince1970: 1_767_225_600)) == expected)
    }

    @Test("malformed values are nil", arguments: ["", "soon", "-3", "1e3", "Thu, 01 Jan 2026 00:02:00 UTC", "Thu, 32 Jan 2026 00:02:00 GMT",
                                                   "Thu, 01 Foo 2026 00:02:00 GMT", "Thu, 01 Jan 2026 24:00:00 GMT", String(repeating: "9", count: 100)])
    func rejects(text: String) {
        #expect(RetryAfter.seconds(text, now: Date()) == nil)
    }
}
