import Foundation

/// Writes one stored event, with its roll-up contributions, as a `JSONEachRow` line of
/// ``ClickHouseSchema/columns``.
enum ClickHouseEventRow {
    /// The row for `record` of `projectID`, with what `analysis` adds to the roll-ups (only its
    /// count as an event when nil), up to its last value: it ends with `,"batch_id":`, and
    /// ``finish(_:batchID:)`` completes it once the spool has chosen the batch. `fingerprint` is
    /// the issue the main database grouped the event into as it stored it (processing at
    /// ingest); nil for an event stored waiting for the workers, whose link row they write.
    static func prefix(_ record: EventRecord, projectID: Int64, receivedAt: Int64, analysis: EventAnalysis?,
                       fingerprint: String?) -> Data {
        let sums = analysis?.sums ?? [(RollupKey(projectID: projectID, metric: "events", dimension: record.type,
                                                 appVersion: record.appVersion, day: day(record.occurredAt)), RollupSum(count: 1))]
        return row(record, projectID: projectID, receivedAt: receivedAt, sums: sums, observations: analysis?.observations ?? [],
                   sketches: analysis?.sketches ?? [], fingerprint: fingerprint ?? "")
    }

    /// A link row (``ClickHouseSchema/issueLinkType``) putting `event` into the issue of
    /// `fingerprint`, or with `linked` false an unlink row taking it out: the event's id and
    /// filter columns, no JSON and no contributions, in the form of
    /// ``prefix(_:projectID:receivedAt:analysis:fingerprint:)``.
    static func link(_ event: PendingEvent, fingerprint: String, linked: Bool) -> Data {
        let record = EventRecord(id: event.id, type: linked ? ClickHouseSchema.issueLinkType : ClickHouseSchema.issueUnlinkType,
                                 occurredAt: event.occurredAt, appID: event.appID, appVersion: event.appVersion,
                                 appBuild: event.appBuild, os: event.os, osVersion: event.osVersion, deviceModel: event.deviceModel,
                                 page: event.page, sessionID: event.sessionID, durationMs: nil, tagsJSON: "{}", payloadJSON: "{}",
                                 imagesJSON: nil, contextJSON: nil, userKey: event.userKey)
        return row(record, projectID: event.projectID, receivedAt: event.receivedAt, sums: [], observations: [], sketches: [],
                   fingerprint: fingerprint)
    }

    /// A row's columns up to `,"batch_id":`, the contributions as given.
    private static func row(_ record: EventRecord, projectID: Int64, receivedAt: Int64, sums: [(key: RollupKey, sum: RollupSum)],
                            observations: [(key: RollupKey, value: Double)], sketches: [(key: RollupKey, register: Int, rank: UInt8)],
                            fingerprint: String) -> Data {
        var w = JSONWriter()
        w.beginObject()
        w.key("project_id"); w.number(projectID)
        w.key("type"); w.string(record.type)
        w.key("occurred_at"); w.number(record.occurredAt)
        w.key("id"); w.string(record.id)
        w.key("received_at"); w.number(receivedAt)
        w.key("day"); w.number(day(record.occurredAt))
        w.key("app_id"); w.string(record.appID)
        w.key("app_version"); w.string(record.appVersion)
        w.key("app_build"); w.string(record.appBuild)
        w.key("os"); w.string(record.os)
        w.key("os_version"); w.string(record.osVersion)
        w.key("device_model"); w.string(record.deviceModel)
        w.key("page"); w.string(record.page)
        w.key("session_id"); w.string(record.sessionID)
        w.key("duration_ms"); if let duration = record.durationMs { w.number(duration) } else { w.null() }
        w.key("user_key"); w.string(record.userKey)
        w.key("tags_json"); w.string(record.tagsJSON)
        w.key("payload_json"); w.string(record.payloadJSON)
        w.key("images_json"); w.string(record.imagesJSON)
        w.key("context_json"); w.string(record.contextJSON)
        w.key("sum_metric"); w.beginArray(); for item in sums { w.string(item.key.metric) }; w.endArray()
        w.key("sum_dimension"); w.beginArray(); for item in sums { w.string(item.key.dimension) }; w.endArray()
        w.key("sum_count"); w.beginArray(); for item in sums { w.number(item.sum.count) }; w.endArray()
        w.key("sum_total"); w.beginArray(); for item in sums { w.number(item.sum.total) }; w.endArray()
        w.key("obs_metric"); w.beginArray(); for item in observations { w.string(item.key.metric) }; w.endArray()
        w.key("obs_dimension"); w.beginArray(); for item in observations { w.string(item.key.dimension) }; w.endArray()
        w.key("obs_bucket"); w.beginArray(); for item in observations { w.number(LogHistogram.bucket(item.value)) }; w.endArray()
        w.key("sketch_metric"); w.beginArray(); for item in sketches { w.string(item.key.metric) }; w.endArray()
        w.key("sketch_dimension"); w.beginArray(); for item in sketches { w.string(item.key.dimension) }; w.endArray()
        w.key("sketch_register"); w.beginArray(); for item in sketches { w.number(item.register) }; w.endArray()
        w.key("sketch_rank"); w.beginArray(); for item in sketches { w.number(Int(item.rank)) }; w.endArray()
        w.key("fingerprint"); w.string(fingerprint)
        w.key("batch_id")
        return w.data
    }

    /// The UTC day (days since 1970) of a time in milliseconds, rounding down before 1970 too.
    static func day(_ millis: Int64) -> Int64 {
        millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
    }

    /// Appends the row `prefix` completed with `batchID`, and a newline, to `data`.
    static func finish(_ prefix: Data, batchID: Int64, into data: inout Data) {
        data.append(prefix)
        data.append(contentsOf: String(batchID).utf8)
        data.append(contentsOf: [0x7D, 0x0A])
    }
}
