import Foundation
import VigilCore

/// The process-wide network recorder the SDK instruments sessions with.
///
/// Instrumentation outlives monitoring sessions (a `URLSessionConfiguration` may be
/// instrumented before `Vigil.start` and its sessions live on after `Vigil.stop`), so the
/// recorder is one object for the process, pointed at each monitoring session as it starts and
/// stopped (requests then pass through unrecorded) when it ends.
enum NetworkMonitoring {
    /// The recorder; inactive until a session with the network module starts.
    static let recorder: NetworkRecorder = {
        let made = NetworkRecorder(output: { _, _ in })
        made.stop()
        return made
    }()

    /// Points the recorder at `session`, with the setup's network settings; Vigil's own server
    /// is never recorded. With the network module off, the recorder stays stopped.
    static func attach(_ session: MonitoringSession, setup: VigilSetup) {
        guard setup.monitoring.isEnabled(.network) else {
            recorder.stop()
            return
        }
        var configuration = setup.monitoring.network
        if let host = setup.serverURL?.host, !host.isEmpty {
            configuration.excludedHosts = HostPatternSet(configuration.excludedHosts.patterns + [host])
        }
        recorder.restart(configuration: configuration) { [weak session] payload, start in
            session?.recordNetwork(payload, start: start)
        }
        #if canImport(Darwin) && !canImport(FoundationNetworking)
        // Apple platforms record every session from here on (opt out per session or host).
        DarwinNetworkMonitor.shared.install(recorder: recorder)
        #endif
    }

    /// Stops recording (the session ended).
    static func detach() {
        recorder.stop()
    }
}
