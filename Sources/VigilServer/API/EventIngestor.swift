import Foundation
import VigilCore

/// Turns one `POST /api/v1/events` body into stored rows: decodes each event on its own,
/// validates and sanitizes it, and writes the good ones in one transaction; an id the project
/// already has is accepted and not stored again.
///
/// Threading: safe to share; every call is independent. Cost: decoding dominates (see
/// ``EventBatchDecoder``); a clean event is stored as sent, a changed one is re-encoded.
public final class EventIngestor: Sendable {
    /// What happened to one batch.
    public struct Outcome: Sendable {
        /// Ids (as sent) of every event the server now holds: stored now or earlier.
        public var accepted: [String] = []
        /// Events refused, with reasons.
        public var rejected: [EventRejection] = []
        /// How many were newly stored.
        public var stored = 0
        /// How many were already stored (same id).
        public var duplicates = 0
        /// How many the sanitizer changed.
        public var sanitized = 0
        /// How many of the stored were processed as they were stored (see
        /// ``EventProcessor/commitAnalyzed(_:)``); the rest wait for the worker pool.
        public var processed = 0

        /// The answer body: `{"accepted": [...], "rejected": [{"index", "id", "reason"}], "stored": n}`.
        public func json() -> Data {
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("accepted")
            writer.beginArray()
            for id in accepted { writer.string(id) }
            writer.endArray()
            writer.key("rejected")
            writer.beginArray()
            for rejection in rejected {
                writer.beginObject()
                writer.key("index"); writer.number(rejection.index)
                writer.key("id"); writer.string(rejection.id)
                writer.key("reason"); writer.string(rejection.reason)
                writer.endObject()
            }
            writer.endArray()
            writer.key("stored"); writer.number(stored)
            writer.key("duplicates"); writer.number(duplicates)
            writer.endObject()
            return writer.data
        }
    }

    /// Which decoder reads bodies; ``EventJSON`` only for comparisons.
    public enum Decoder: String, Sendable {
        case tape
        case foundation
    }

    private let store: ServerStore
    private let sanitizer: EventSanitizer
    private let validator: EventValidator
    private let clock: any VigilClock
    private let decoder: Decoder
    private let processor: EventProcessor?
    private let computeGate: AdmissionGate
    private let sink: ClickHouseEventSink?
    private let sinkAnalyzer: EventProcessor?

    /// An ingestor writing to `store`. With a `processor`, events are stored already processed
    /// (analyzed from the payloads just decoded, written once); without one they are stored
    /// waiting, for a worker pool (this server's or another's) to claim.
    ///
    /// At most `computeWidth` requests (default: the active cores) decode and analyze at once;
    /// the others wait their turn in arrival order (see ``AdmissionGate``). Waiting for the
    /// commit is outside that limit.
    public init(store: ServerStore, sanitizer: EventSanitizer = EventSanitizer(), validator: EventValidator = EventValidator(),
                clock: any VigilClock = SystemClock(), decoder: Decoder = .tape, processor: EventProcessor? = nil,
                computeWidth: Int = ProcessInfo.processInfo.activeProcessorCount, sink: ClickHouseEventSink? = nil,
                sinkAnalyzer: EventProcessor? = nil) {
        self.store = store
        self.sanitizer = sanitizer
        self.validator = validator
        self.clock = clock
        self.decoder = decoder
        self.processor = processor
        computeGate = AdmissionGate(width: computeWidth)
        self.sink = sink
        self.sinkAnalyzer = sinkAnalyzer ?? processor
    }

    /// Reads, checks and stores `body` for project `projectID`.
    ///
    /// Throws ``EventBatchError`` when the body is neither a JSON array nor JSON lines, and
    /// ``DatabaseError`` when the transaction fails (then nothing of the batch is stored).
    public func ingest(_ body: Data, projectID: Int64) throws -> Outcome {
        let now = clock.wallNow()
        var (outcome, prepared) = try computeGate.run { try prepare(body, projectID: projectID, now: now) }
        let inserted: Set<String>
        switch prepared {
        case .analyzed(let item, let processor):
            // The events newly stored go to the event table's spool before the answer: once the
            // client hears "stored", they are on disk here until ClickHouse confirms them. The
            // spool is written while the main database commits (the processor's journal); when
            // that did not take them, they are spooled here, after the commit.
            let committed = try processor.commitAnalyzed(item)
            (inserted, outcome.processed) = (committed.stored, committed.processed)
            if let sink, !committed.journaled, !inserted.isEmpty {
                // Rows carry the issue only when the commit processed them; events stored
                // waiting get theirs from the workers' link rows.
                if let encoded = item.journalRows, committed.processed > 0 {
                    try sink.append(rows: zip(item.records, encoded).filter { inserted.contains($0.0.id) }.map { ($0.0.id, $0.1) })
                } else {
                    try sink.append(projectID: projectID, records: item.records, analyses: item.analyses, stored: inserted,
                                    receivedAt: item.receivedAt)
                }
            }
        case .waiting(let records, let contents):
            inserted = try store.insertEvents(projectID: projectID, records, receivedAt: now)
            if let sink {
                let analyses = sinkAnalyzer.map {
                    $0.analyzed(projectID: projectID, records: records, contents: contents, receivedAt: now).analyses
                }
                try sink.append(projectID: projectID, records: records, analyses: analyses, stored: inserted,
                                receivedAt: ServerStore.millis(now))
            }
        }
        outcome.stored = inserted.count
        outcome.duplicates = outcome.accepted.count - inserted.count
        return outcome
    }

    /// A batch read and checked, before it is stored.
    private enum Prepared {
        /// Analyzed, for the processor to commit.
        case analyzed(ProcessedInsert, EventProcessor)
        /// Rows to store waiting for the workers (and their decoded contents, when an event
        /// sink needs them analyzed).
        case waiting([EventRecord], [DecodedContent])
    }

    /// The CPU part of ``ingest(_:projectID:)``: decode, validate, sanitize, and (with a
    /// processor) analyze; run behind ``computeGate``.
    private func prepare(_ body: Data, projectID: Int64, now: Date) throws -> (Outcome, Prepared) {
        let slots = try decode(Self.isASCII(body) ? body : EventSanitizer.repairUTF8(body))
        var outcome = Outcome()
        var records: [EventRecord] = []
        records.reserveCapacity(slots.count)
        var contents: [DecodedContent] = []
        let keepContents = processor != nil || (sink != nil && sinkAnalyzer != nil)
        if keepContents { contents.reserveCapacity(slots.count) }
        var seen = Set<String>()
        // A slot's position is the event's index in the body (array index or non-empty line).
        for (position, slot) in slots.enumerated() {
            switch slot {
            case .failure(let rejection):
                outcome.rejected.append(rejection)
            case .success(var decoded):
                if let problem = validator.problem(in: decoded.event, now: now) {
                    outcome.rejected.append(EventRejection(index: position, id: decoded.sentID, reason: problem,
                                                           category: .invalid))
                    continue
                }
                let report = sanitizer.sanitize(&decoded.event)
                if report.changed { outcome.sanitized += 1 }
                let record: EventRecord
                do {
                    record = try Self.record(decoded, reencode: report.changed)
                } catch {
                    outcome.rejected.append(EventRejection(index: position, id: decoded.sentID,
                                                           reason: "cannot be stored: \(error)", category: .invalid))
                    continue
                }
                outcome.accepted.append(decoded.sentID)
                if seen.insert(record.id).inserted {
                    records.append(record)
                    if keepContents { contents.append(DecodedContent(payload: decoded.event.payload, images: decoded.event.images)) }
                }
            }
        }
        guard let processor else { return (outcome, .waiting(records, contents)) }
        var item = processor.analyzed(projectID: projectID, records: records, contents: contents, receivedAt: now)
        if sink != nil {
            // The spool's rows, encoded here (in parallel, behind the gate) for the committer.
            item.journalRows = zip(item.records, item.analyses).map { record, analysis in
                ClickHouseEventRow.prefix(record, projectID: projectID, receivedAt: item.receivedAt, analysis: analysis,
                                          fingerprint: analysis.issue?.fingerprint.value)
            }
        }
        return (outcome, .analyzed(item, processor))
    }

    private func decode(_ body: Data) throws -> [Result<EventBatchDecoder.Decoded, EventRejection>] {
        switch decoder {
        case .tape:
            return try EventBatchDecoder.decode(body)
        case .foundation:
            return try EventJSON.decodeBatch(body).map { slot in
                slot.map { EventBatchDecoder.Decoded(event: $0, sentID: $0.id.canonicalString) }
                    .mapError { EventRejection(index: $0.index, id: $0.id, reason: $0.reason) }
            }
        }
    }

    /// Whether every byte is ASCII (then it is valid UTF-8 and needs no repair): a plain scan,
    /// where validating by building a `String` would copy the whole body.
    static func isASCII(_ body: Data) -> Bool {
        body.withUnsafeBytes { bytes in
            // Eight bytes at a time; the high bit of any byte marks non-ASCII.
            var combined: UInt64 = 0
            let words = bytes.count / 8
            var offset = 0
            while offset < words * 8 {
                combined |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < bytes.count {
                combined |= UInt64(bytes[offset])
                offset += 1
            }
            return combined & 0x8080_8080_8080_8080 == 0
        }
    }

    /// The row for a decoded event: columns from the (sanitized) event, JSON as sent when the
    /// sanitizer changed nothing, re-encoded otherwise.
    static func record(_ decoded: EventBatchDecoder.Decoded, reencode: Bool) throws -> EventRecord {
        let event = decoded.event
        let payloadJSON: String
        let tagsJSON: String
        let imagesJSON: String?
        let contextJSON: String?
        if reencode || decoded.rawPayload == nil {
            let encoder = EventJSON.makeEncoder()
            payloadJSON = String(decoding: try encodePayload(event.payload, encoder: encoder), as: UTF8.self)
            tagsJSON = String(decoding: try encoder.encode(event.tags), as: UTF8.self)
            imagesJSON = try event.images.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
            contextJSON = String(decoding: try encoder.encode(event.context), as: UTF8.self)
        } else {
            payloadJSON = decoded.rawPayload ?? "{}"
            tagsJSON = decoded.rawTags ?? "{}"
            imagesJSON = decoded.rawImages
            contextJSON = decoded.rawContext
        }
        return EventRecord(id: event.id.canonicalString, type: event.type.rawValue, occurredAt: ServerStore.millis(event.time),
                           appID: event.app.id, appVersion: event.app.version, appBuild: event.app.build,
                           os: event.device.os, osVersion: event.device.osVersion, deviceModel: event.device.model,
                           page: page(of: event), sessionID: event.session.canonicalString, durationMs: duration(of: event),
                           tagsJSON: tagsJSON, payloadJSON: payloadJSON, imagesJSON: imagesJSON, contextJSON: contextJSON,
                           userKey: userKey(of: event), frameCounts: frameCounts(of: event))
    }

    /// A frame window's counts (nil for other events).
    static func frameCounts(of event: Event) -> FrameCounts? {
        if case .frames(let frames) = event.payload { return FrameCounts(frames) }
        return nil
    }

    /// Who the event counts as for distinct users: the app's (hashed) user id, else the install.
    static func userKey(of event: Event) -> String? {
        if let user = event.user, !user.isEmpty { return "u:" + user }
        return event.install.map { "i:" + $0.canonicalString }
    }

    /// The page an event belongs to: its context's, or a frames window's own.
    static func page(of event: Event) -> String? {
        if let page = event.context.page, !page.isEmpty { return page }
        if case .frames(let frames) = event.payload { return frames.page }
        return nil
    }

    /// The event's headline duration in milliseconds (see ``EventRecord/durationMs``).
    static func duration(of event: Event) -> Double? {
        switch event.payload {
        case .hang(let hang): return hang.durationMs
        case .frames(let frames): return frames.durationMs
        case .launch(let launch): return launch.ttidMs
        case .network(let network): return network.timings.total
        case .span(let span): return span.durationMs
        case .session(let session): return session.durationMs
        case .crash, .resource, .log: return nil
        }
    }

    static func encodePayload(_ payload: EventPayload, encoder: JSONEncoder) throws -> Data {
        switch payload {
        case .hang(let body): return try encoder.encode(body)
        case .frames(let body): return try encoder.encode(body)
        case .launch(let body): return try encoder.encode(body)
        case .network(let body): return try encoder.encode(body)
        case .crash(let body): return try encoder.encode(body)
        case .resource(let body): return try encoder.encode(body)
        case .span(let body): return try encoder.encode(body)
        case .log(let body): return try encoder.encode(body)
        case .session(let body): return try encoder.encode(body)
        }
    }
}
