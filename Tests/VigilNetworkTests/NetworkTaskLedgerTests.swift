import Foundation
import Testing
@testable import Vigil
import VigilCore

/// The merge-by-task-identifier bookkeeping the Apple adapter relies on, and the translation of
/// `URLSessionTaskMetrics` dates into phase marks — both shared code, tested here.
@Suite("Network task ledger and metrics times")
struct NetworkTaskLedgerTests {
    private let start = Date(timeIntervalSince1970: 1_795_985_323)

    private func observation(_ path: String) -> NetworkObservation {
        NetworkObservation(method: "GET", url: "https://api.example.com\(path)", start: start,
                           marks: NetworkTransactionMarks(end: 0))
    }

    @Test("metrics and completion merge by key in either order; the first start wins")
    func mergeInAnyOrder() throws {
        var ledger = NetworkTaskLedger<Int>(capacity: 8)
        let t0 = MonotonicInstant.milliseconds(1000)
        ledger.begin(1, observation: observation("/a"), at: t0)
        ledger.begin(1, observation: observation("/ignored"), at: t0.advanced(byMilliseconds: 5))
        ledger.begin(2, observation: observation("/b"), at: t0)
        #expect(ledger.metrics(1) { $0.networkProtocol = "h2" } == nil)
        let first = try #require(ledger.complete(1, at: t0.advanced(byMilliseconds: 80), waitForMetrics: true) { $0.status = 200 })
        #expect(first.url.hasSuffix("/a") && first.status == 200 && first.networkProtocol == "h2")
        #expect(ledger.complete(2, at: t0.advanced(byMilliseconds: 40), waitForMetrics: true) { $0.status = 204 } == nil)
        let second = try #require(ledger.metrics(2) { $0.marks.end = 39.5 })
        #expect(second.status == 204 && second.marks.end == 39.5, "metrics replace the completion's own total")
        #expect(ledger.count == 0)
        #expect(ledger.metrics(2) { _ in } == nil, "late duplicates find nothing")
    }

    @Test("without metrics the completion's monotonic total is used")
    func noMetrics() throws {
        var ledger = NetworkTaskLedger<Int>(capacity: 8)
        ledger.begin(7, observation: observation("/c"), at: .milliseconds(100))
        let done = try #require(ledger.complete(7, at: .milliseconds(352), waitForMetrics: false) { _ in })
        #expect(done.marks.end == 252)
    }

    @Test("completed requests whose metrics never come are finished after the wait")
    func expiry() {
        var ledger = NetworkTaskLedger<Int>(capacity: 8)
        ledger.begin(1, observation: observation("/d"), at: .milliseconds(0))
        ledger.begin(2, observation: observation("/e"), at: .milliseconds(0))
        _ = ledger.complete(1, at: .milliseconds(100), waitForMetrics: true) { _ in }
        #expect(ledger.expire(at: .milliseconds(5000), maximumWaitMs: 10_000).isEmpty)
        #expect(ledger.expire(at: .milliseconds(10_100), maximumWaitMs: 10_000).map(\.url) == ["https://api.example.com/d"])
        #expect(ledger.count == 1, "an unfinished request is not expired")
    }

    @Test("a full ledger forgets its oldest request and counts it")
    func capacity() {
        var ledger = NetworkTaskLedger<Int>(capacity: 2)
        for key in 0..<3 { ledger.begin(key, observation: observation("/\(key)"), at: .milliseconds(Double(key))) }
        #expect(ledger.count == 2 && ledger.evicted == 1)
        #expect(!ledger.contains(0) && ledger.contains(2))
        ledger.discard(2)
        #expect(!ledger.contains(2))
    }

    @Test("metrics dates become marks from the task's start, with every phase")
    func metricsTimes() {
        func at(_ ms: Double) -> Date { start.addingTimeInterval(ms / 1000) }
        let times = TransactionTimes(taskStart: start, taskEnd: at(250), domainLookupStart: at(2), domainLookupEnd: at(12),
                                     connectStart: at(12), connectEnd: at(90), secureConnectionStart: at(40),
                                     secureConnectionEnd: at(90), requestStart: at(91), requestEnd: at(92),
                                     responseStart: at(190), responseEnd: at(249))
        let timings = times.marks.timings
        #expect(abs(timings.dns! - 10) < 0.001 && abs(timings.connect! - 28) < 0.001 && abs(timings.tls! - 50) < 0.001)
        #expect(abs(timings.request! - 1) < 0.001 && abs(timings.ttfb! - 98) < 0.001 && abs(timings.response! - 59) < 0.001)
        #expect(abs(timings.total - 250) < 0.001)
        let reused = TransactionTimes(taskStart: start, taskEnd: at(30), requestStart: at(1), requestEnd: at(1),
                                      responseStart: at(20), responseEnd: at(29))
        #expect(reused.marks.timings.dns == nil && reused.marks.timings.connect == nil)
    }
}
