import Foundation

/// Writes one stored event, with its roll-up contributions, as a `JSONEachRow` line of
/// ``ClickHouseSchema/columns``.
enum ClickHouseEventRow {
    /// The row for `record` of `projectID`, with what `analysis` adds to the roll-ups (only its
    /// count as an event when nil), up to its last value: it ends with `,"batch_id":`, and
    /// ``finish(_:batchID:)`` completes it once the spool has chosen the batch.
    static func prefix(_ record: EventRecord, projectID: Int64, receivedAt: Int64, analysis: EventAnalysis?) -> Data {
        var w = JSONWriter()
        w.beginObject()
        w.key("project_id"); w.number(projectID)
        w.key("type"); w.string(record.type)
        w.key("occurred_at"); w.number(record.occurredAt)
        w.key("id"); w.string(record.id)
        w.key("received_at"); w.number(receivedAt)
        let day = record.occurredAt >= 0 ? record.occurredAt / 86_400_000 : (record.occurredAt - 86_399_999) / 86_400_000
        w.key("day"); w.number(day)
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
        let sums = analysis?.sums ?? [(RollupKey(projectID: projectID, metric: "events", dimension: record.type,
                                                 appVersion: record.appVersion, day: day), RollupSum(count: 1))]
        w.key("sum_metric"); w.beginArray(); for item in sums { w.string(item.key.metric) }; w.endArray()
        w.key("sum_dimension"); w.beginArray(); for item in sums { w.string(item.key.dimension) }; w.endArray()
        w.key("sum_count"); w.beginArray(); for item in sums { w.number(item.sum.count) }; w.endArray()
        w.key("sum_total"); w.beginArray(); for item in sums { w.number(item.sum.total) }; w.endArray()
        let observations = analysis?.observations ?? []
        w.key("obs_metric"); w.beginArray(); for item in observations { w.string(item.key.metric) }; w.endArray()
        w.key("obs_dimension"); w.beginArray(); for item in observations { w.string(item.key.dimension) }; w.endArray()
        w.key("obs_bucket"); w.beginArray(); for item in observations { w.number(LogHistogram.bucket(item.value)) }; w.endArray()
        let sketches = analysis?.sketches ?? []
        w.key("sketch_metric"); w.beginArray(); for item in sketches { w.string(item.key.metric) }; w.endArray()
        w.key("sketch_dimension"); w.beginArray(); for item in sketches { w.string(item.key.dimension) }; w.endArray()
        w.key("sketch_register"); w.beginArray(); for item in sketches { w.number(item.register) }; w.endArray()
        w.key("sketch_rank"); w.beginArray(); for item in sketches { w.number(Int(item.rank)) }; w.endArray()
        w.key("batch_id")
        return w.data
    }

    /// Appends the row `prefix` completed with `batchID`, and a newline, to `data`.
    static func finish(_ prefix: Data, batchID: Int64, into data: inout Data) {
        data.append(prefix)
        data.append(contentsOf: String(batchID).utf8)
        data.append(contentsOf: [0x7D, 0x0A])
    }
}
