#if canImport(MetricKit) && (os(iOS) || os(macOS))
import Foundation
import MetricKit
import VigilCore

/// Subscribes to `MXMetricManager` and hands every diagnostic payload's JSON to
/// ``MetricKitEventConverter`` (the server's MetricKit reader), so crashes no in-process handler
/// can see (watchdog kills, jetsam, guard and resource violations, terminations by the system),
/// CPU and disk-write exceptions and launch diagnostics reach the server.
///
/// iOS 14+ and macOS 12+ deliver diagnostics once a day, or at the next launch; iOS 15+ and
/// macOS 12+ deliver them right after the next launch. Of the daily metric payloads
/// (`MXMetricPayload`, iOS only) the exit counts become an event (``MetricKitExitCounts``) when
/// some exit is one no handler sees; their histograms have no event type and are not converted
/// (docs/runtime.md). Thin by design: every decision is the converter's, tested on Linux.
///
/// MetricKit calls the subscriber on a queue of its own; the conversion runs there and the events
/// go to the SDK's sink (which copies them onto its queue), so the app's threads do no work.
final class MetricKitSubscriber: NSObject, MXMetricManagerSubscriber, @unchecked Sendable {
    private let lock = NSLock()
    private let converter: MetricKitEventConverter
    private let sink: any EventSink
    private var totals = MetricKitEventConverter.Counters()
    private var metricPayloads = 0

    private init(converter: MetricKitEventConverter, sink: any EventSink) {
        self.converter = converter
        self.sink = sink
    }

    nonisolated(unsafe) private static var current: MetricKitSubscriber?
    private static let slot = NSLock()

    /// Subscribes (replacing an earlier subscriber of the SDK) with `converter`, sending to `sink`.
    static func start(converter: MetricKitEventConverter, sink: any EventSink) {
        let subscriber = MetricKitSubscriber(converter: converter, sink: sink)
        slot.lock()
        let previous = current
        current = subscriber
        slot.unlock()
        if let previous { MXMetricManager.shared.remove(previous) }
        MXMetricManager.shared.add(subscriber)
    }

    /// Unsubscribes.
    static func stop() {
        slot.lock()
        let previous = current
        current = nil
        slot.unlock()
        if let previous { MXMetricManager.shared.remove(previous) }
    }

    /// What the subscriber did so far (for diagnostics).
    static var counters: (diagnostics: MetricKitEventConverter.Counters, metricPayloads: Int) {
        slot.lock()
        let subscriber = current
        slot.unlock()
        guard let subscriber else { return (MetricKitEventConverter.Counters(), 0) }
        subscriber.lock.lock(); defer { subscriber.lock.unlock() }
        return (subscriber.totals, subscriber.metricPayloads)
    }

    func didReceive(_ payloads: [MXDiagnosticPayload]) {
        var counters = MetricKitEventConverter.Counters()
        var events: [Event] = []
        for payload in payloads {
            events += converter.events(fromDiagnosticPayload: payload.jsonRepresentation(), counters: &counters)
        }
        for event in events { sink.emit(event) }
        lock.lock()
        totals.converted += counters.converted
        totals.duplicates += counters.duplicates
        totals.disabled += counters.disabled
        totals.unreadable += counters.unreadable
        lock.unlock()
    }

    #if os(iOS)
    /// Daily metric payloads: the exit counts (`MXAppExitMetric`, iOS 14+) become an event when
    /// some exit is one no in-process handler sees; the histograms are not converted.
    func didReceive(_ payloads: [MXMetricPayload]) {
        var events: [Event] = []
        for payload in payloads {
            guard let exits = payload.applicationExitMetrics else { continue }
            let foreground = exits.foregroundExitData
            let background = exits.backgroundExitData
            let counts = MetricKitExitCounts(
                foreground: [
                    "normalApp": foreground.cumulativeNormalAppExitCount,
                    "memoryResourceLimit": foreground.cumulativeMemoryResourceLimitExitCount,
                    "badAccess": foreground.cumulativeBadAccessExitCount,
                    "abnormal": foreground.cumulativeAbnormalExitCount,
                    "illegalInstruction": foreground.cumulativeIllegalInstructionExitCount,
                    "appWatchdog": foreground.cumulativeAppWatchdogExitCount,
                ],
                background: [
                    "normalApp": background.cumulativeNormalAppExitCount,
                    "memoryResourceLimit": background.cumulativeMemoryResourceLimitExitCount,
                    "cpuResourceLimit": background.cumulativeCPUResourceLimitExitCount,
                    "memoryPressure": background.cumulativeMemoryPressureExitCount,
                    "badAccess": background.cumulativeBadAccessExitCount,
                    "abnormal": background.cumulativeAbnormalExitCount,
                    "illegalInstruction": background.cumulativeIllegalInstructionExitCount,
                    "appWatchdog": background.cumulativeAppWatchdogExitCount,
                    "suspendedWithLockedFile": background.cumulativeSuspendedWithLockedFileExitCount,
                    "backgroundTaskAssertionTimeout": background.cumulativeBackgroundTaskAssertionTimeoutExitCount,
                ],
                periodStart: payload.timeStampBegin, periodEnd: payload.timeStampEnd,
                appVersion: payload.latestApplicationVersion)
            if let event = converter.event(from: counts) { events.append(event) }
        }
        for event in events { sink.emit(event) }
        lock.lock(); metricPayloads += payloads.count; lock.unlock()
    }
    #endif
}
#endif
