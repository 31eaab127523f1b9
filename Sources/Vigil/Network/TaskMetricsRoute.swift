/// Which object URLSession hands a task's `didFinishCollecting` metrics to, and what Vigil does so
/// that the app's own delegates still receive every callback they received before.
///
/// URLSession calls a task-level delegate method on the task's delegate when that implements it,
/// and then not on the session's delegate. Vigil therefore never takes the callback from the app:
/// it sets its own task delegate only on tasks without one, and that delegate hands the metrics
/// on to the session's delegate whenever the session's delegate implements the method (Alamofire,
/// for instance, completes a request only after its session delegate saw the metrics). Tasks
/// with the app's own task delegate are left alone.
///
/// Pure decisions, shared so that they are tested on Linux; the Apple adapter
/// (`DarwinNetworkMonitor`, `TaskMetricsDelegate`) asks the Objective-C runtime for the inputs.
enum TaskMetricsRoute: Equatable, Sendable {
    /// The task had no delegate: Vigil's task delegate receives the metrics, records them, and
    /// forwards them to the session's delegate.
    case vigilTaskDelegate
    /// The app set a task delegate that implements the metrics callback: it keeps receiving it
    /// and Vigil sees no metrics for the task (the completion gives status, bytes and total).
    case appTaskDelegate
    /// The app set a task delegate without the metrics callback: the session's delegate receives
    /// it, and Vigil sees it only when that delegate's class was instrumented.
    case sessionDelegate

    /// Chooses the route when the task starts: `taskHasDelegate` is whether `task.delegate` is
    /// set, `taskDelegateTakesMetrics` whether it responds to the metrics selector.
    static func atStart(taskHasDelegate: Bool, taskDelegateTakesMetrics: Bool) -> TaskMetricsRoute {
        guard taskHasDelegate else { return .vigilTaskDelegate }
        return taskDelegateTakesMetrics ? .appTaskDelegate : .sessionDelegate
    }

    /// Whether Vigil sets its own task delegate.
    var setsVigilTaskDelegate: Bool { self == .vigilTaskDelegate }

    /// Whether the completion waits (up to the ledger's limit) for metrics before it is recorded:
    /// only when Vigil's own delegate is sure to receive them.
    var waitsForMetrics: Bool { self == .vigilTaskDelegate }

    /// Whether Vigil's task delegate hands a metrics callback it received on to the session's
    /// delegate: always when that delegate implements the method and is not Vigil's own object
    /// (a session whose delegate is Vigil's would otherwise call itself). A session delegate whose
    /// class Vigil instrumented records the metrics a second time through its hook; the ledger
    /// keeps the first and finds nothing for the second.
    static func forwardsToSessionDelegate(sessionDelegateTakesMetrics: Bool, sessionDelegateIsVigils: Bool) -> Bool {
        sessionDelegateTakesMetrics && !sessionDelegateIsVigils
    }
}
