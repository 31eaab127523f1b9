import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCore
import VigilTransport

extension Vigil {
    #if canImport(FoundationNetworking)
    /// Records the HTTP(S) requests of sessions made from `configuration` (Linux; Apple
    /// platforms record every session from `start(_:)` on, see
    /// ``excludeFromNetworkMonitoring(_:)``).
    ///
    /// Call once the configuration is otherwise complete, before making sessions from it; may be
    /// called before ``start(_:)`` (requests are recorded while the SDK runs). Returns false
    /// when the configuration could not be instrumented (64 already are). Each request becomes
    /// one `network` event, templated, sampled and filtered by `VigilSetup.monitoring.network`.
    @discardableResult
    public static func instrument(_ configuration: URLSessionConfiguration) -> Bool {
        NetworkMonitoring.recorder.instrument(configuration)
    }
    #endif

    /// What the OpenTelemetry exporter (``VigilSetup/openTelemetry``) sent and dropped; nil when
    /// none runs.
    public static var openTelemetryStatistics: OTLPExporterStatistics? {
        OpenTelemetryExport.statistics
    }

    /// What network recording saw, kept and dropped since the process started.
    public static var networkCounters: NetworkRecordingCounters {
        NetworkMonitoring.recorder.counters
    }
}
