import Foundation
import Testing
@testable import Vigil
import VigilCore

/// The Apple adapter's rules for receiving task metrics without taking a callback from the app:
/// shared, pure, and tested here; the adapter only asks the Objective-C runtime for the inputs.
@Suite("Task metrics route")
struct TaskMetricsRouteTests {
    @Test("Vigil sets its own task delegate only on tasks that have none, and waits for metrics only then")
    func routeAtStart() {
        let bare = TaskMetricsRoute.atStart(taskHasDelegate: false, taskDelegateTakesMetrics: false)
        #expect(bare == .vigilTaskDelegate && bare.setsVigilTaskDelegate && bare.waitsForMetrics)
        // A task delegate that is absent cannot take metrics; the answer must not depend on the flag.
        #expect(TaskMetricsRoute.atStart(taskHasDelegate: false, taskDelegateTakesMetrics: true) == .vigilTaskDelegate)

        let app = TaskMetricsRoute.atStart(taskHasDelegate: true, taskDelegateTakesMetrics: true)
        #expect(app == .appTaskDelegate && !app.setsVigilTaskDelegate && !app.waitsForMetrics)

        let session = TaskMetricsRoute.atStart(taskHasDelegate: true, taskDelegateTakesMetrics: false)
        #expect(session == .sessionDelegate && !session.setsVigilTaskDelegate && !session.waitsForMetrics)
    }

    @Test("metrics received by Vigil's task delegate go on to a session delegate that implements the callback")
    func forwarding() {
        #expect(TaskMetricsRoute.forwardsToSessionDelegate(sessionDelegateTakesMetrics: true, sessionDelegateIsVigils: false))
        #expect(!TaskMetricsRoute.forwardsToSessionDelegate(sessionDelegateTakesMetrics: false, sessionDelegateIsVigils: false))
        #expect(!TaskMetricsRoute.forwardsToSessionDelegate(sessionDelegateTakesMetrics: true, sessionDelegateIsVigils: true),
                "a session whose delegate is Vigil's own object would call itself")
    }

    @Test("metrics delivered twice (Vigil's delegate, then the forwarded call through an instrumented class) record one request")
    func duplicateMetricsRecordOnce() throws {
        var ledger = NetworkTaskLedger<Int>(capacity: 4)
        let observation = NetworkObservation(method: "GET", url: "https://api.example.com/a",
                                             start: Date(timeIntervalSince1970: 1_795_985_323),
                                             marks: NetworkTransactionMarks(end: 0))
        ledger.begin(1, observation: observation, at: .milliseconds(0))
        #expect(ledger.metrics(1) { $0.marks.end = 41 } == nil)
        #expect(ledger.metrics(1) { $0.marks.end = 41 } == nil, "the second delivery only repeats the facts")
        let done = try #require(ledger.complete(1, at: .milliseconds(45), waitForMetrics: true) { $0.status = 200 })
        #expect(done.marks.end == 41 && done.status == 200)
        #expect(ledger.metrics(1) { $0.marks.end = 99 } == nil && ledger.count == 0)
    }
}
