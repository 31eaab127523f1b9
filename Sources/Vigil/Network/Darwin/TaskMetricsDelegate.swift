#if canImport(Darwin) && !canImport(FoundationNetworking)
import Foundation

/// The task delegate Vigil sets on tasks that have none. It implements only the metrics
/// callback; URLSession then calls it instead of the session delegate's, so it hands every
/// callback on to the session's delegate when that implements the method (``TaskMetricsRoute``):
/// the app's delegate sees every message it saw without Vigil. Every other task message goes to
/// the session's delegate as before, because this object does not respond to it.
///
/// Runs on the session's delegate queue, where URLSession calls it; the forwarded call runs there
/// too, synchronously, as URLSession would have made it.
final class TaskMetricsDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    static let shared = TaskMetricsDelegate()

    /// `-URLSession:task:didFinishCollectingMetrics:`.
    static let metricsSelector = NSSelectorFromString("URLSession:task:didFinishCollectingMetrics:")

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        DarwinNetworkMonitor.shared.collected(metrics, task: task, session: session)
        guard let sessionDelegate = session.delegate as? URLSessionTaskDelegate else { return }
        let forwards = TaskMetricsRoute.forwardsToSessionDelegate(
            sessionDelegateTakesMetrics: sessionDelegate.responds(to: Self.metricsSelector),
            sessionDelegateIsVigils: sessionDelegate === self)
        if forwards { sessionDelegate.urlSession?(session, task: task, didFinishCollecting: metrics) }
    }
}
#endif
