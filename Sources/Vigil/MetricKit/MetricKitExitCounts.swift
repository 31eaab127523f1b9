import Foundation
import VigilCore
import VigilReports

/// How often the app ended in one MetricKit metric payload's period (`MXAppExitMetric`), by
/// reason, for the app in the foreground and in the background: the system's own count of
/// watchdog kills, memory-limit and memory-pressure kills, CPU-limit kills, files locked while
/// suspended and background tasks that ran out of time, which no in-process handler sees.
///
/// The Apple subscriber fills it from the typed `MXForegroundExitData` / `MXBackgroundExitData`
/// properties (names as in the SDK minus `cumulative…ExitCount`, e.g. `appWatchdog`); turning it
/// into an event is shared and tested on Linux.
public struct MetricKitExitCounts: Sendable, Hashable {
    /// Exits while in the foreground, by reason (`normalApp`, `appWatchdog`, `memoryResourceLimit`…).
    public var foreground: [String: Int]
    /// Exits while in the background, by reason (adds `memoryPressure`, `cpuResourceLimit`,
    /// `suspendedWithLockedFile`, `backgroundTaskAssertionTimeout`).
    public var background: [String: Int]
    /// The payload's period.
    public var periodStart: Date
    public var periodEnd: Date
    /// `latestApplicationVersion` of the payload.
    public var appVersion: String?

    public init(foreground: [String: Int], background: [String: Int], periodStart: Date, periodEnd: Date,
                appVersion: String? = nil) {
        self.foreground = foreground
        self.background = background
        self.periodStart = periodStart
        self.periodEnd = periodEnd
        self.appVersion = appVersion
    }

    /// Reasons that are crashes an in-process handler records itself (and so are not news).
    static let recordedInProcess: Set<String> = ["badAccess", "illegalInstruction"]
    /// Reasons that are not failures at all.
    static let orderly: Set<String> = ["normalApp"]

    /// Exits no in-process handler sees, by "foreground."/"background." reason, non-zero only.
    public var unseenExits: [String: Int] {
        var result: [String: Int] = [:]
        for (scope, counts) in [("foreground", foreground), ("background", background)] {
            for (reason, count) in counts where count > 0 && !Self.recordedInProcess.contains(reason) && !Self.orderly.contains(reason) {
                result["\(scope).\(reason)"] = count
            }
        }
        return result
    }
}

extension MetricKitEventConverter {
    /// A `warn` `log` event listing the exits of a metric payload's period that no in-process
    /// handler sees (watchdog, memory, CPU limit, locked file, task timeout…), with every non-zero
    /// count as an attribute (`exits.foreground.appWatchdog`…); nil when there were none. Its id
    /// is derived from the period and the counts, so a payload delivered twice is one event.
    public func event(from exits: MetricKitExitCounts) -> Event? {
        let unseen = exits.unseenExits
        guard !unseen.isEmpty else { return nil }
        var attributes: [String: AttributeValue] = ["metricKit.kind": .string("exitMetrics")]
        for (scope, counts) in [("foreground", exits.foreground), ("background", exits.background)] {
            for (reason, count) in counts where count > 0 { attributes["exits.\(scope).\(reason)"] = .int(Int64(count)) }
        }
        let listed = unseen.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        var appInfo = app
        if let version = exits.appVersion { appInfo.version = version }
        let parts = ["metrickit-exits", Timestamp.format(exits.periodStart), Timestamp.format(exits.periodEnd),
                     exits.appVersion ?? ""] + attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let identity = VigilEventWriter.stableIdentifier(parts)
        return Event(id: identity, time: exits.periodEnd, session: VigilEventWriter.stableIdentifier(["session", identity.uuidString]),
                     app: appInfo, device: device, tags: ["source": "metrickit"],
                     payload: .log(LogPayload(level: .warn, message: "MetricKit exits no handler saw: \(listed)",
                                              attributes: attributes)))
    }
}
