import Foundation
import VigilCore

/// The seeded fault mix of the uploader's end-to-end tests: 30% of ingest requests fail (500,
/// 502 HTML, 200 HTML, 200 empty, 503, a dropped connection), 10% time out (half of them after
/// the batch was stored, as when an answer is lost), 5% are answered 429 with `Retry-After`
/// of 1–3 s; the rest are accepted (a tenth of those only in part). Counts what it decided.
public final class IngestFaultPlan: @unchecked Sendable {
    /// What to do with one request.
    public enum Decision: Sendable {
        /// Hang until the client gives up; `storing` says whether the batch is kept first.
        case timeOut(storing: Bool)
        /// Answer with this reply and keep nothing.
        case fail(LoopbackHTTPServer.Reply)
        /// Store the batch and acknowledge it; `partially` acknowledges only the first half.
        case accept(partially: Bool)
    }

    private let lock = NSLock()
    private var generator: SeededGenerator
    private var outcomes: [String: Int] = [:]

    /// A plan that decides from `seed`.
    public init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    /// Decides the next request's fate.
    public func next() -> Decision {
        lock.lock()
        defer { lock.unlock() }
        let roll = Double(generator.next() >> 11) / Double(1 << 53)
        let pick = generator.next()
        let decision: (String, Decision)
        if roll < 0.10 {
            decision = ("timeout", .timeOut(storing: pick % 2 == 0))
        } else if roll < 0.40 {
            switch pick % 6 {
            case 0: decision = ("500", .fail(.respond(status: 500, headers: [:], body: Data("{\"error\":\"internal\"}".utf8))))
            case 1: decision = ("502 html", .fail(.respond(status: 502, headers: ["Content-Type": "text/html"],
                                                          body: Data("<html><body><h1>502 Bad Gateway</h1></body></html>".utf8))))
            case 2: decision = ("200 html", .fail(.respond(status: 200, headers: ["Content-Type": "text/html"],
                                                          body: Data("<!doctype html><title>captive portal</title>".utf8))))
            case 3: decision = ("200 empty", .fail(.respond(status: 200, headers: [:], body: Data())))
            case 4: decision = ("503", .fail(.respond(status: 503, headers: [:], body: Data())))
            default: decision = ("dropped", .fail(.close))
            }
        } else if roll < 0.45 {
            decision = ("429", .fail(.respond(status: 429, headers: ["Retry-After": "\(1 + pick % 3)"], body: Data())))
        } else {
            decision = ("accepted", .accept(partially: pick % 10 == 0))
        }
        outcomes[decision.0, default: 0] += 1
        return decision.1
    }

    /// Counts an outcome decided elsewhere (a refused key, an unreadable body).
    public func note(_ outcome: String) {
        lock.lock()
        outcomes[outcome, default: 0] += 1
        lock.unlock()
    }

    /// How often each outcome was decided, for failure messages.
    public var summary: String {
        lock.lock()
        defer { lock.unlock() }
        return "\(outcomes.sorted { $0.key < $1.key })"
    }
}
