import Foundation
import VigilCore
import VigilTransport

/// The OTLP exporter of the running session, when `VigilSetup.openTelemetry` asks for one.
enum OpenTelemetryExport {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var current: OTLPExporter?

    /// `sink`, or `sink` and a new exporter side by side when the setup names a receiver.
    static func attach(to sink: any EventSink, setup: VigilSetup) -> any EventSink {
        guard let configuration = setup.openTelemetry else { return sink }
        let exporter = OTLPExporter(configuration: configuration)
        lock.lock()
        let previous = current
        current = exporter
        lock.unlock()
        previous?.stop()
        return EventSinkGroup([sink, exporter])
    }

    /// Sends what is queued (waiting at most 5 s) and stops the exporter.
    static func detach() {
        lock.lock()
        let exporter = current
        current = nil
        lock.unlock()
        guard let exporter else { return }
        exporter.stop()
        exporter.flushAndWait(timeoutSeconds: 5)
    }

    /// The running exporter's counts.
    static var statistics: OTLPExporterStatistics? {
        lock.lock(); defer { lock.unlock() }
        return current?.statistics
    }
}
