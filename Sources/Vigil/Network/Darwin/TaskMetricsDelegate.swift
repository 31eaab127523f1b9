#if canImport(Darwin) && !canImport(FoundationNetworking)
import Foundation

/// The task delegate Vigil sets on tasks that have none: it implements only the
/// metrics callback, which URLSession calls on a task delegate before the session's delegate,
/// so the app's delegate sees every message it saw before.
final class TaskMetricsDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    static let shared = TaskMetricsDelegate()

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        DarwinNetworkMonitor.shared.collected(metrics, task: task, session: session)
    }
}
#endif
