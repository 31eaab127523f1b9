import Foundation
import VigilCore

/// Writes a ``CrashReport`` as a Vigil event (schema version 1): crash reports and jetsam
/// reports as `crash` events, hang reports as `hang` events.
///
/// Frames become absolute addresses (image base plus offset) with the images in the event's
/// `images`; symbol names are not part of the schema and are dropped. The event id is the
/// report's incident identifier when it is a UUID, otherwise a UUID derived from the report's
/// contents, so converting the same report twice gives the same event. MetricKit CPU,
/// disk-write and launch diagnostics have no event type and throw ``ReportError/cannotConvert(_:)``.
public enum VigilEventWriter {
    /// The report as an event.
    public static func event(from report: CrashReport) throws(ReportError) -> Event {
        let identity = StableHash.of([report.incidentID ?? "", report.captureTime ?? "", report.process.name ?? "",
                                      report.app.bundleID ?? "", String(report.threads.count),
                                      report.triggeredThread.map { $0.frames.prefix(8).map { String($0.imageOffset) }.joined(separator: ",") } ?? ""])
        let id = report.incidentID.flatMap(UUID.init(uuidString:)) ?? identity.uuid
        let session = report.extraFields.first(where: { $0.name == "session" }).flatMap { UUID(uuidString: $0.value) }
            ?? StableHash.of(["session", id.uuidString]).uuid
        let time = report.captureTime.flatMap { AppleDate.parse($0) ?? Timestamp.parse($0) } ?? Date(timeIntervalSince1970: 0)
        let app = AppInfo(id: report.app.bundleID ?? report.process.name ?? "unknown", version: report.app.version ?? "",
                          build: report.app.build ?? "")
        let device = DeviceInfo(model: report.system.deviceModel ?? "unknown", os: report.system.osName ?? "",
                                osVersion: report.system.osVersion ?? "",
                                arch: report.system.architecture ?? report.images.first?.arch ?? "")
        let images = report.images.map { image in
            ImageInfo(name: image.name, id: image.uuid ?? "", arch: image.arch ?? report.system.architecture ?? "",
                      loadAddress: Address(image.base), size: image.size ?? 0, path: image.path)
        }
        let payload: EventPayload
        switch report.kind {
        case .crash, .jetsam:
            payload = .crash(crashPayload(report))
        case .hang:
            payload = .hang(hangPayload(report, start: time))
        case .cpuException, .diskWriteException, .launch:
            throw .cannotConvert("a \(report.kind.rawValue) diagnostic has no Vigil event type (events carry crashes and hangs)")
        }
        var context = EventContext()
        context.page = report.extraFields.first(where: { $0.name == "page" })?.value
        return Event(id: id, time: time, session: session, app: app, device: device, context: context,
                     images: images.isEmpty ? nil : images, payload: payload)
    }

    /// When the report was captured (its capture time, as Apple or ISO 8601 text), if it says.
    public static func captureDate(of report: CrashReport) -> Date? {
        report.captureTime.flatMap { AppleDate.parse($0) ?? Timestamp.parse($0) }
    }

    /// A UUID derived from `parts` alone (the same parts give the same UUID on every run), for
    /// events made from reports that carry no identifier.
    public static func stableIdentifier(_ parts: [String]) -> UUID {
        StableHash.of(parts).uuid
    }

    /// The event as pretty-printed JSON; a crash event carries what the payload has no field
    /// for (function names, the exception backtrace…) in `payload.reportDetails`.
    public static func write(_ report: CrashReport) throws(ReportError) -> String {
        let event = try event(from: report)
        let data: Data
        do {
            data = try EventJSON.makeEncoder(pretty: true).encode(event)
        } catch {
            throw .cannotConvert("the event could not be encoded: \(error)")
        }
        guard case .crash = event.payload, let details = VigilEventDetails.encode(report),
              let value = try? JSONParser.parse(data).value, let payload = value["payload"] else {
            return String(decoding: data, as: UTF8.self) + "\n"
        }
        let extended = MetricKitWriter.replacing("payload", in: value,
                                                 with: MetricKitWriter.replacing(VigilEventDetails.key, in: payload, with: details))
        return JSONWriter().pretty(extended) + "\n"
    }

    static func crashPayload(_ report: CrashReport) -> CrashPayload {
        let threads = report.threads.map { thread in
            CrashThread(crashed: thread.crashed, name: thread.name ?? (thread.isMainThread ? "main" : thread.queue),
                        frames: thread.frames.filter { !$0.isInlined }.map { Address(report.address(of: $0)) })
        }
        var registers: [String: Address]?
        if let crashed = report.triggeredThread, !crashed.registers.isEmpty {
            registers = Dictionary(crashed.registers.map { ($0.name, Address($0.value)) }, uniquingKeysWith: { first, _ in first })
        }
        var terminationText: String?
        if let termination = report.termination {
            var first = [termination.namespace.map { "Namespace \($0)" }, termination.codeHex.map { "Code \($0)" }, termination.indicator]
                .compactMap { $0 }.joined(separator: ", ")
            if first.isEmpty { first = termination.details.first ?? "" }
            terminationText = ([first] + termination.details.filter { $0 != first }).joined(separator: "\n")
        }
        var signal = report.exception?.signal
        if report.kind == .jetsam {
            signal = signal ?? "SIGKILL"
            let killed = report.jetsam?.killed.first
            terminationText = "Namespace JETSAM, \(killed?.reason ?? "jettisoned")"
                + (killed?.residentPages.map { ", \($0) resident pages" } ?? "")
        }
        let fatalHang = report.termination?.code == TerminationCode.watchdog
            || report.extraFields.contains(where: { $0.name == "fatalHang" && $0.value == "true" })
        return CrashPayload(
            signal: signal, code: report.exception?.codesText ?? report.exception?.type,
            faultAddress: report.exception?.faultAddress.map(Address.init),
            exception: report.languageException.map { CrashException(type: $0.name ?? $0.kind.rawValue, reason: $0.reason) },
            threads: threads, registers: registers, fatalHang: fatalHang, terminationReason: terminationText)
    }

    static func hangPayload(_ report: CrashReport, start: Date) -> HangPayload {
        let durationMs = report.hang?.durationMs ?? 0
        let main = report.mainThread ?? report.triggeredThread ?? report.threads.first
        func addresses(_ frames: [StackFrame]) -> [Address] { frames.filter { !$0.isInlined }.map { Address(report.address(of: $0)) } }
        let stacks = (main?.samples ?? main.map { [StackSample(frames: $0.frames, count: 1)] } ?? [])
            .sorted { $0.count > $1.count }
            .map { StackCount(frames: addresses($0.frames), count: $0.count) }
        let extra = { (name: String) in report.extraFields.first(where: { $0.name == name })?.value }
        return HangPayload(
            start: start, end: start.addingTimeInterval(durationMs / 1000), durationMs: durationMs,
            kind: extra("hangKind").flatMap(HangKind.init(rawValue:)) ?? .fullyBlocking,
            thresholdMs: extra("thresholdMs").flatMap(Double.init) ?? 0,
            runLoopActivity: extra("runLoopActivity") ?? "unknown", stacks: stacks,
            hotStack: main.map { addresses($0.frames) }, sampleCount: stacks.reduce(0) { $0 + $1.count })
    }
}
