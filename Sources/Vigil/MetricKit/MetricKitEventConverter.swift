import Foundation
import VigilCore
import VigilReports

/// Turns a MetricKit diagnostic payload (`MXDiagnosticPayload.jsonRepresentation()`) into Vigil
/// events, through the same ``MetricKitReader`` and ``VigilEventWriter`` the server uses for
/// uploaded MetricKit files, so a payload means the same thing on both sides.
///
/// What becomes an event, by diagnostic kind (``MetricKitEventConverter/Decision``):
/// - **crash**: a `crash` event when no in-process handler can have recorded it: the process
///   was killed (`SIGKILL`: watchdog, jetsam, a fatal guard or resource violation, a
///   termination by the system), or the exception is EXC_GUARD or EXC_RESOURCE, or crash capture
///   is off. A crash the Mach or signal handler catches (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
///   SIGTRAP, SIGABRT) would be reported twice and is skipped (counted), unless
///   ``includesCaughtCrashes``.
/// - **hang**: a `hang` event when Vigil's own hang detection is off (it reports the same hangs
///   with its own samples), else skipped and counted.
/// - **CPU exception, disk-write exception, launch**: a `log` event (`warn`) naming the kind,
///   with the diagnostic's numbers as attributes; the schema has no event type with their
///   stacks.
///
/// Every event carries the tag `source: metrickit`; the app's id is the SDK's when the payload
/// has none; the app version, build, OS and device are the payload's (the diagnostic may come
/// from an earlier version of the app). Pure and thread-safe; cost linear in the payload.
public struct MetricKitEventConverter: Sendable {
    /// What happened to each diagnostic of a payload.
    public struct Counters: Sendable, Hashable {
        /// Diagnostics that became events.
        public var converted = 0
        /// Crash and hang diagnostics skipped because Vigil's own handlers report them.
        public var duplicates = 0
        /// Diagnostics of a module that is switched off.
        public var disabled = 0
        /// Payloads that could not be read at all.
        public var unreadable = 0

        public init() {}
    }

    /// The decision for one diagnostic.
    public enum Decision: Sendable, Hashable {
        /// Converted into an event.
        case event
        /// Skipped: an in-process handler of this run reports the same thing.
        case duplicate
        /// Skipped: the module it belongs to is off.
        case disabled
    }

    /// The SDK's app identity, used when the payload has no bundle identifier.
    public var app: AppInfo
    /// The device, for fields the payload lacks.
    public var device: DeviceInfo
    /// The modules switched on (crash, hang, resource, launch gate the kinds).
    public var modules: Set<VigilModule>
    /// Whether crash diagnostics an in-process handler also records become events too.
    public var includesCaughtCrashes = false

    /// A converter for the SDK's `app`, `device` and enabled `modules`.
    public init(app: AppInfo, device: DeviceInfo, modules: Set<VigilModule>) {
        self.app = app
        self.device = device
        self.modules = modules
    }

    /// Signals the in-process handlers (Mach exception port, SIGABRT, the Linux signal
    /// handler) record themselves.
    static let caughtSignals: Set<String> = ["SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGTRAP", "SIGABRT", "SIGSYS"]
    /// Mach exceptions the handler's task exception port receives.
    static let caughtExceptions: Set<String> = ["EXC_BAD_ACCESS", "EXC_BAD_INSTRUCTION", "EXC_ARITHMETIC", "EXC_BREAKPOINT"]
    /// Exceptions no task exception port receives (docs/crash.md): guard and resource
    /// violations end the process from the kernel.
    static let uncaughtExceptions: Set<String> = ["EXC_GUARD", "EXC_RESOURCE"]

    /// Whether a crash report read from MetricKit is one the in-process handlers also record:
    /// a caught signal or Mach exception, and neither a kill (`SIGKILL`) nor a guard or resource
    /// violation.
    public static func inProcessHandlerRecords(_ report: CrashReport) -> Bool {
        let type = report.exception?.type
        let signal = report.exception?.signal
        if let type, uncaughtExceptions.contains(type) { return false }
        if signal == "SIGKILL" { return false }
        if let signal, caughtSignals.contains(signal) { return true }
        if let type, caughtExceptions.contains(type) { return true }
        return false
    }

    /// What to do with one diagnostic read from a payload.
    public func decision(for report: CrashReport) -> Decision {
        switch report.kind {
        case .crash, .jetsam:
            guard modules.contains(.crash) else { return .event }
            return Self.inProcessHandlerRecords(report) && !includesCaughtCrashes ? .duplicate : .event
        case .hang:
            return modules.contains(.hang) ? .duplicate : .event
        case .cpuException, .diskWriteException:
            return modules.contains(.resource) ? .event : .disabled
        case .launch:
            return modules.contains(.launch) ? .event : .disabled
        }
    }

    /// The events of one payload's JSON; `counters` adds what happened to each diagnostic.
    public func events(fromDiagnosticPayload json: Data, counters: inout Counters) -> [Event] {
        let reports: [CrashReport]
        do {
            reports = try MetricKitReader.read(json)
        } catch {
            counters.unreadable += 1
            return []
        }
        var events: [Event] = []
        for report in reports {
            switch decision(for: report) {
            case .duplicate: counters.duplicates += 1; continue
            case .disabled: counters.disabled += 1; continue
            case .event: break
            }
            guard let event = event(from: report) else { counters.unreadable += 1; continue }
            events.append(event)
            counters.converted += 1
        }
        return events
    }

    /// One diagnostic as an event (nil only if the writer refuses a crash or hang report).
    func event(from report: CrashReport) -> Event? {
        switch report.kind {
        case .crash, .jetsam, .hang:
            guard var event = try? VigilEventWriter.event(from: report) else { return nil }
            if report.app.bundleID == nil { event.app.id = app.id }
            fill(&event.device)
            event.tags["source"] = "metrickit"
            return event
        case .cpuException, .diskWriteException, .launch:
            return logEvent(from: report)
        }
    }

    private func fill(_ target: inout DeviceInfo) {
        if target.model.isEmpty || target.model == "unknown" { target.model = device.model }
        if target.os.isEmpty { target.os = device.os }
        if target.osVersion.isEmpty { target.osVersion = device.osVersion }
        if target.arch.isEmpty { target.arch = device.arch }
    }

    private func logEvent(from report: CrashReport) -> Event {
        var attributes: [String: AttributeValue] = ["metricKit.kind": .string(report.kind.rawValue)]
        let usage = report.resource
        var message: String
        switch report.kind {
        case .cpuException:
            let cpu = usage?.cpuTimeSeconds.map { String(format: "%.0f s", $0) } ?? "unknown"
            let sampled = usage?.sampledSeconds.map { String(format: "%.0f s", $0) } ?? "unknown"
            message = "MetricKit CPU exception: \(cpu) of CPU in \(sampled)"
        case .diskWriteException:
            message = "MetricKit disk-write exception: \(usage?.bytesWritten.map { String(format: "%.0f bytes", $0) } ?? "unknown") written"
        default:
            message = "MetricKit launch diagnostic: \(usage?.launchDurationMs.map { String(format: "%.0f ms", $0) } ?? "unknown")"
        }
        if let value = usage?.cpuTimeSeconds { attributes["cpuTimeSeconds"] = .double(value) }
        if let value = usage?.sampledSeconds { attributes["sampledSeconds"] = .double(value) }
        if let value = usage?.bytesWritten { attributes["bytesWritten"] = .double(value) }
        if let value = usage?.launchDurationMs { attributes["launchDurationMs"] = .double(value) }
        if let top = report.triggeredThread ?? report.threads.first, let frame = top.frames.first,
           let image = report.image(of: frame) {
            attributes["topFrame"] = .string("\(image.name) + \(frame.imageOffset)")
        }
        if report.isPartial { message += " (payload partly read)" }
        var appInfo = app
        if let version = report.app.version { appInfo.version = version }
        if let build = report.app.build { appInfo.build = build }
        var deviceInfo = DeviceInfo(model: report.system.deviceModel ?? "", os: report.system.osName ?? "",
                                    osVersion: report.system.osVersion ?? "", arch: report.system.architecture ?? "")
        fill(&deviceInfo)
        let time = VigilEventWriter.captureDate(of: report) ?? Date(timeIntervalSince1970: 0)
        // The same diagnostic gives the same event id, so a payload delivered twice is one event.
        let identity = VigilEventWriter.stableIdentifier(["metrickit", report.kind.rawValue, report.captureTime ?? "", message,
                                                          report.app.version ?? "", report.app.build ?? ""])
        return Event(id: identity, time: time, session: VigilEventWriter.stableIdentifier(["session", identity.uuidString]),
                     app: appInfo, device: deviceInfo, tags: ["source": "metrickit"],
                     payload: .log(LogPayload(level: .warn, message: message, attributes: attributes)))
    }
}
