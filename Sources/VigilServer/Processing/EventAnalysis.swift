import Foundation
import VigilCore

/// What processing one stored event produces: its issue (crashes and hangs), its resolved
/// stack, the images it lacked symbols for, and its contributions to the roll-ups.
///
/// Pure apart from symbol lookups; built by ``EventAnalyzer``.
public struct EventAnalysis: Sendable {
    /// The event as claimed.
    public var event: PendingEvent
    /// The issue it belongs to, for crashes and hangs.
    public var issue: IssueObservation?
    /// Images whose symbols were needed and missing.
    public var missingImages: [ImageInfo] = []
    /// Roll-up sums to add (a list, not a dictionary: an event adds to a handful of distinct
    /// rows, and ``ProcessingBatch`` hashes each once when it folds a batch).
    public var sums: [(key: RollupKey, sum: RollupSum)] = []
    /// Roll-up histogram observations to add: the row and the observed value.
    public var observations: [(key: RollupKey, value: Double)] = []
    /// Distinct-count sketch registers to raise: the row, the register and its rank.
    public var sketches: [(key: RollupKey, register: Int, rank: UInt8)] = []
}

/// One crash or hang as an issue sees it.
public struct IssueObservation: Sendable {
    /// What it is (`crash`/`hang`, or a launch kind).
    public var kind: String
    /// The grouping key (32 hex digits).
    public var fingerprint: IssueFingerprint
    /// One line naming the failure and where it happened.
    public var title: String
    /// A second line: the reason, duration or page.
    public var subtitle: String?
    /// The resolved stack as JSON (an array of ``ResolvedFrame``).
    public var framesJSON: String
    /// Whether any frame was symbolicated.
    public var symbolicated: Bool
    /// The diagnosis, when an analyzer gave one.
    public var classification: IssueClassification?
}

/// An event claimed for processing: the columns processing needs.
public struct PendingEvent: Sendable {
    /// The owning project.
    public var projectID: Int64
    /// Database or event id.
    public var id: String
    /// The event type's raw value.
    public var type: String
    /// When the server stored it, in milliseconds since 1970.
    public var receivedAt: Int64
    /// When it happened, in milliseconds since 1970.
    public var occurredAt: Int64
    /// Bundle identifier of the app.
    public var appID: String
    /// Marketing version of the app.
    public var appVersion: String
    /// Build number of the app.
    public var appBuild: String
    /// Operating system name.
    public var os: String
    /// Operating system version.
    public var osVersion: String
    /// Hardware model of the device.
    public var deviceModel: String
    /// The page (screen) it belongs to.
    public var page: String?
    /// The app run that produced it.
    public var sessionID: String
    /// The event's headline duration in milliseconds, when it has one.
    public var durationMs: Double?
    /// The event's `payload` as JSON.
    public var payloadJSON: String
    /// The event's `images` as JSON, when it has any.
    public var imagesJSON: String?
    /// 0 first processing, 2 re-processing after symbols arrived.
    public var state: Int
    /// The issue of an earlier processing, if any.
    public var issueID: Int64?
    /// Who the event counts as for distinct users (``EventRecord/userKey``); nil counts the
    /// session.
    public var userKey: String? = nil
    /// The payload and images as ingest decoded them, for events handed from ingest to
    /// processing in memory: then ``payloadJSON`` and ``imagesJSON`` are not parsed again.
    public var decoded: DecodedContent? = nil
    /// The fingerprint of the issue an earlier processing grouped it into, if any.
    public var fingerprint: String? = nil

    /// Whether this is a re-processing (no new roll-up contributions).
    public var isReprocessing: Bool { state == 2 }
}

/// The parts of an event processing reads from JSON, already decoded.
public struct DecodedContent: Sendable {
    /// The typed payload.
    public var payload: EventPayload
    /// The binary images, when the event has any.
    public var images: [ImageInfo]?

    /// Wraps an ingested event's payload and images.
    public init(payload: EventPayload, images: [ImageInfo]?) {
        self.payload = payload
        self.images = images
    }
}

/// Computes ``EventAnalysis`` for claimed events.
public struct EventAnalyzer {
    let policy: InAppPolicy
    let tables: any SymbolTableSource
    let crashAnalyzer: (any CrashAnalyzer)?

    /// An analyzer resolving stacks through `tables`, grouping and diagnosing crashes and hangs
    /// with `crashAnalyzer` when there is one.
    public init(policy: InAppPolicy = InAppPolicy(), tables: any SymbolTableSource, crashAnalyzer: (any CrashAnalyzer)? = nil) {
        self.policy = policy
        self.tables = tables
        self.crashAnalyzer = crashAnalyzer
    }

    /// Analyzes one event; an event whose stored JSON cannot be read contributes nothing but
    /// its count (it passed ingest, so this means a bug or a hand-edited row).
    public func analyze(_ event: PendingEvent) -> EventAnalysis {
        var analysis = EventAnalysis(event: event)
        analysis.sums.reserveCapacity(10)
        let day = event.occurredAt >= 0 ? event.occurredAt / 86_400_000 : (event.occurredAt - 86_399_999) / 86_400_000
        func key(_ metric: String, _ dimension: String) -> RollupKey {
            RollupKey(projectID: event.projectID, metric: metric, dimension: dimension, appVersion: event.appVersion, day: day)
        }
        func add(_ metric: String, _ dimension: String, count: Int64 = 1, total: Double = 0) {
            analysis.sums.append((key(metric, dimension), RollupSum(count: count, total: total)))
        }
        func observe(_ metric: String, _ dimension: String, _ value: Double) {
            analysis.observations.append((key(metric, dimension), value))
        }
        // Release health: per release (the version in the key, the build as the dimension).
        let release = event.appBuild
        let page = event.page ?? "(no page)"
        let contributes = !event.isReprocessing
        if contributes { add("events", event.type) }
        guard let type = EventType(rawValue: event.type),
              let payload = event.decoded?.payload ?? Self.decodePayload(type, event.payloadJSON) else {
            return analysis
        }
        switch payload {
        case .hang(let hang):
            if contributes {
                add("hang", page, total: hang.durationMs)
                observe("hang.duration", page, hang.durationMs)
                // The hang rate counts hangs of 250 ms or more, as Xcode Organizer does.
                if hang.durationMs >= ReleaseMetric.hangRateMinimumMs { add(ReleaseMetric.hangs, release, total: hang.durationMs) }
            }
            let stack = hang.hotStack ?? hang.stacks.first?.frames ?? []
            let seconds = FixedDecimal.format(hang.durationMs / 1000, digits: 1) + " s"
            analysis.issue = issue(kind: "hang", failureClass: hang.kind == .fatal ? "fatal hang" : "hang", stack: stack,
                                   event: event, payload: payload, analysis: &analysis, titlePrefix: "Hang",
                                   subtitle: event.page.map { "\(seconds) on \($0) (\(hang.kind.rawValue))" }
                                       ?? "\(seconds) (\(hang.kind.rawValue))")
        case .crash(let crash):
            if contributes { add("crash", crash.fatalHang ? "fatal hang" : (crash.signal ?? crash.exception?.type ?? "crash")) }
            let thread = crash.threads.first(where: \.crashed) ?? crash.threads.first
            let failure = crash.exception?.type ?? crash.signal ?? (crash.fatalHang ? "fatal hang" : "crash")
            var subtitle = crash.exception?.reason ?? [crash.signal, crash.code].compactMap { $0 }.joined(separator: " ")
            if crash.fatalHang { subtitle = "killed during a hang" + (crash.terminationReason.map { " (\($0))" } ?? "") }
            analysis.issue = issue(kind: "crash", failureClass: crash.fatalHang ? "fatal hang" : failure,
                                   stack: thread?.frames ?? [], event: event, payload: payload, analysis: &analysis,
                                   titlePrefix: failure, subtitle: subtitle.isEmpty ? nil : String(subtitle.prefix(300)))
        case .frames(let frames) where contributes:
            add("frames.windows", page, total: Double(frames.frames))
            add("frames.dropped", page, total: Double(frames.dropped))
            add("frames.slow", page, total: Double(frames.slow))
            add("frames.severe", page, total: Double(frames.severe))
            add("frames.frozen", page, total: Double(frames.frozen))
            if let duration = frames.durationMs, frames.frozen > 0 { observe("frames.frozen.duration", page, duration) }
        case .launch(let launch) where contributes:
            let kind = launch.kind.rawValue
            add("launch", kind, total: launch.ttidMs ?? 0)
            if let ttid = launch.ttidMs {
                observe("launch.ttid", kind, ttid)
                if launch.kind == .cold { observe(ReleaseMetric.ttid, release, ttid) }
            }
            if let ttfd = launch.ttfdMs { observe("launch.ttfd", kind, ttfd) }
            // The launch waterfall's marks, like TTID and TTFD measured from the launch's origin:
            // `main` (after pre-main) and `didFinishLaunching`.
            if let preMain = launch.preMainMs { observe("launch.main", kind, preMain) }
            if let toDidFinish = launch.mainToDidFinishMs { observe("launch.didfinish", kind, (launch.preMainMs ?? 0) + toDidFinish) }
        case .network(let network) where contributes:
            let dimension = "\(network.method) \(network.urlTemplate)"
            let timings = network.timings
            add("network", dimension, total: timings.total)
            observe("network.total", dimension, timings.total)
            let failed = network.error != nil || (network.status ?? 0) >= 500
            if failed { add("network.errors", dimension) }
            for (phase, value) in [("dns", timings.dns), ("connect", timings.connect), ("tls", timings.tls),
                                   ("request", timings.request), ("ttfb", timings.ttfb), ("response", timings.response)] {
                if let value { add("network.\(phase)", dimension, total: value) }
            }
        case .span(let span) where contributes:
            add("span", span.name, total: span.durationMs)
            observe("span.duration", span.name, span.durationMs)
        case .resource(let resource) where contributes:
            add("resource.cpu", page, total: resource.cpuPercent)
            add("resource.memory", page, total: Double(resource.memoryBytes))
        case .log(let log) where contributes:
            add("log", log.level.rawValue)
        case .session(let session) where contributes:
            add(ReleaseMetric.sessions, release, total: session.durationMs)
            add(ReleaseMetric.foreground, release, total: session.foregroundMs)
            add(ReleaseMetric.outcome(session.outcome), release)
            let user = event.userKey ?? "s:" + event.sessionID
            let (register, rank) = HyperLogLog.observation(of: user)
            analysis.sketches.append((key(ReleaseMetric.users, release), register, rank))
            if session.outcome.isCrash { analysis.sketches.append((key(ReleaseMetric.crashedUsers, release), register, rank)) }
        default:
            break
        }
        return analysis
    }

    private func issue(kind: String, failureClass: String, stack: [Address], event: PendingEvent, payload: EventPayload,
                       analysis: inout EventAnalysis, titlePrefix: String, subtitle: String?) -> IssueObservation {
        let images = event.decoded.map { $0.images ?? [] } ?? event.imagesJSON.flatMap(Self.decodeImages) ?? []
        var resolver = StackResolver(images: images, policy: policy, tables: tables)
        let frames = resolver.resolve(stack)
        analysis.missingImages = resolver.missing
        let fingerprint: IssueFingerprint
        var classification: IssueClassification?
        if let crashAnalyzer, let verdict = crashAnalyzer.analyze(rebuild(event, images: images, payload: payload), tables: tables) {
            // The analyzer's key also separates kinds, so a hang and a crash never share an issue.
            fingerprint = IssueFingerprint(kind: kind, failureClass: verdict.classification.category, frames: verdict.components,
                                           provisional: verdict.provisional,
                                           value: String(SecretToken.hash(kind + "\n" + verdict.fingerprint).prefix(32)))
            classification = verdict.classification
        } else {
            fingerprint = IssueFingerprint(kind: kind, failureClass: failureClass, stack: frames)
        }
        let culprit = frames.first(where: { $0.inApp && $0.function != nil })?.label
            ?? frames.first(where: { $0.function != nil })?.label
            ?? frames.first(where: \.inApp)?.label
            ?? frames.first?.label
        let title = culprit.map { "\(titlePrefix) in \($0)" } ?? titlePrefix
        let framesJSON = ResolvedFrame.json(frames)
        return IssueObservation(kind: kind, fingerprint: fingerprint, title: String(title.prefix(500)), subtitle: subtitle,
                                framesJSON: framesJSON, symbolicated: frames.contains { $0.function != nil },
                                classification: classification)
    }

    /// The event as the SDK sent it, from its stored columns (the device's architecture is not
    /// stored; the images carry theirs).
    private func rebuild(_ event: PendingEvent, images: [ImageInfo], payload: EventPayload) -> Event {
        Event(id: UUID(uuidString: event.id) ?? UUID(), time: ServerStore.date(event.occurredAt),
              session: UUID(uuidString: event.sessionID) ?? UUID(),
              app: AppInfo(id: event.appID, version: event.appVersion, build: event.appBuild),
              device: DeviceInfo(model: event.deviceModel, os: event.os, osVersion: event.osVersion, arch: images.first?.arch ?? ""),
              context: EventContext(page: event.page), images: images.isEmpty ? nil : images, payload: payload)
    }

    /// The images of a stored event's `images_json`; nil when it cannot be read.
    static func decodeImages(_ json: String) -> [ImageInfo]? {
        guard let tape = try? JSONTape(bytes: Array(json.utf8)) else { return nil }
        let reader = EventFastReader(tape: tape)
        if let fast = try? reader.array(0, { (item) throws(EventFastReader.Fallback) in try reader.imageInfo(item) }) { return fast }
        return try? JSONTapeDecoder.decode([ImageInfo].self, from: tape)
    }

    /// A stored event's payload; nil when it cannot be read.
    static func decodePayload(_ type: EventType, _ json: String) -> EventPayload? {
        guard let tape = try? JSONTape(bytes: Array(json.utf8)) else { return nil }
        if let fast = try? EventFastReader(tape: tape).payload(type, 0) { return fast }
        do {
            switch type {
            case .hang: return .hang(try JSONTapeDecoder.decode(HangPayload.self, from: tape))
            case .frames: return .frames(try JSONTapeDecoder.decode(FramesPayload.self, from: tape))
            case .launch: return .launch(try JSONTapeDecoder.decode(LaunchPayload.self, from: tape))
            case .network: return .network(try JSONTapeDecoder.decode(NetworkPayload.self, from: tape))
            case .crash: return .crash(try JSONTapeDecoder.decode(CrashPayload.self, from: tape))
            case .resource: return .resource(try JSONTapeDecoder.decode(ResourcePayload.self, from: tape))
            case .span: return .span(try JSONTapeDecoder.decode(SpanPayload.self, from: tape))
            case .log: return .log(try JSONTapeDecoder.decode(LogPayload.self, from: tape))
            case .session: return .session(try JSONTapeDecoder.decode(SessionPayload.self, from: tape))
            }
        } catch {
            return nil
        }
    }
}
