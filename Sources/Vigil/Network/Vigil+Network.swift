import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCore
import VigilTransport

extension Vigil {
    #if canImport(FoundationNetworking)
    /// Records the HTTP(S) requests of sessions made from `configuration` (Linux; Apple
    /// platforms record every session from `start(_:)` on).
    ///
    /// Call once the configuration is otherwise complete, before making sessions from it; may be
    /// called before ``start(_:)`` (requests are recorded while the SDK runs). Returns false
    /// when the configuration could not be instrumented (64 already are). Each request becomes
    /// one `network` event, templated, sampled and filtered by `VigilSetup.monitoring.network`.
    /// Sessions made from configurations left alone are not recorded (the per-session opt-out).
    @discardableResult
    public static func instrument(_ configuration: URLSessionConfiguration) -> Bool {
        NetworkMonitoring.recorder.instrument(configuration)
    }
    #else
    /// Leaves `session`'s requests unrecorded (Apple platforms, where every session is recorded
    /// from ``start(_:)`` on); hosts are excluded with `NetworkConfiguration.excludedHosts`.
    /// Requests of a task whose delegate is the app's own are excluded by host only.
    public static func excludeFromNetworkMonitoring(_ session: URLSession) {
        DarwinNetworkMonitor.shared.exclude(session)
    }

    /// Observes the app's session delegate class for task creation
    /// (`urlSession(_:didCreateTask:)`, iOS 16+, which sees `async` requests whatever the
    /// system does with `resume`) and task metrics (for tasks that have their own task
    /// delegate). The delegate object is not replaced; the class's own methods still run.
    /// Call before creating sessions with that delegate. Returns false when the class could
    /// not be hooked.
    @discardableResult
    public static func instrumentSessionDelegateClass(_ delegateClass: AnyClass) -> Bool {
        DarwinNetworkMonitor.shared.instrument(delegateClass: delegateClass)
    }
    #endif

    /// Adds a W3C `traceparent` header to `request` when its host is listed in
    /// `NetworkConfiguration.traceContextHosts` and it has none; returns the trace context the
    /// request carries (nil when none). On Linux instrumented sessions add it themselves; on
    /// Apple platforms a task's request cannot be changed once created, so the app calls this.
    @discardableResult
    public static func addTraceContext(to request: inout URLRequest) -> TraceParent? {
        let existing = request.value(forHTTPHeaderField: TraceParent.headerName)
        guard let context = NetworkMonitoring.recorder.traceContext(host: request.url?.host?.lowercased() ?? "",
                                                                    existing: existing) else { return nil }
        if context.inject { request.setValue(context.parent.header, forHTTPHeaderField: TraceParent.headerName) }
        return context.parent
    }

    /// What the OpenTelemetry exporter (`VigilSetup.openTelemetry`) sent and dropped; nil when
    /// none runs.
    public static var openTelemetryStatistics: OTLPExporterStatistics? {
        OpenTelemetryExport.statistics
    }

    /// What network recording saw, kept and dropped since the process started.
    public static var networkCounters: NetworkRecordingCounters {
        NetworkMonitoring.recorder.counters
    }
}
