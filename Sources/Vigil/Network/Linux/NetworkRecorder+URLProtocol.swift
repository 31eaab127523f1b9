#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import VigilCore

extension NetworkRecorder {
    /// Instruments `configuration` (Linux): every HTTP(S) request of sessions made from it
    /// afterwards is recorded (unless its host is excluded), and carries a `traceparent` when
    /// its host is listed in ``NetworkConfiguration/traceContextHosts``.
    ///
    /// Call after the configuration is otherwise complete and before making sessions from it:
    /// requests are sent with a copy of its settings taken now. Configurations left alone are
    /// not recorded (the per-session opt-out). Returns false, leaving `configuration` as it was,
    /// when 64 configurations are already instrumented; instrumenting one twice is harmless.
    ///
    /// Differences an instrumented session shows on Linux (documented in docs/network.md): the
    /// response body reaches a data delegate in one piece at the end; redirects are followed
    /// without asking the app's delegate.
    @discardableResult
    public func instrument(_ configuration: URLSessionConfiguration) -> Bool {
        let existing = configuration.protocolClasses ?? []
        if existing.contains(where: { ($0 as? RecordingURLProtocol.Type) != nil }) { return true }
        guard let protocolClass = RecorderSlots.claim(recorder: self, configuration: configuration) else { return false }
        configuration.protocolClasses = [protocolClass] + existing
        return true
    }
}
#endif
