import Foundation
import VigilCore

/// One `request_facts` row: what the request views read from a stored `network` event, taken
/// from the payload the server decoded at ingest rather than by the database's JSON functions.
///
/// The values are exactly those ``ServerStore/requestFactsSelect(_:)`` reads from the
/// stored JSON (the schema-9 fill and the reference the tests compare against): the template is
/// `method urlTemplate`, `failed` is 1 for a transport error or a status of 500 or more, the
/// network type is the context's, else `unknown`. Value type; building one costs a small parse
/// of the context's JSON (and of the payload's when the caller has no decoded payload).
struct RequestFact: Sendable, Hashable {
    var eventID: String
    var occurredAt: Int64
    var appVersion: String
    var osVersion: String
    var deviceModel: String
    var page: String?
    var network: String
    var template: String
    var status: Double?
    var failed: Bool
    var durationMs: Double?
    var totalMs: Double
    /// dns, connect, tls, request, ttfb, response (ms), each nil when the event has none.
    var phases: [Double?]

    /// The fact of `record`, a `network` event, from `payload` (its decoded payload) or, when
    /// that is nil, from the record's stored JSON; nil for another type or an unreadable payload.
    init?(_ record: EventRecord, payload: EventPayload?) {
        guard record.type == "network" else { return nil }
        let decoded = payload ?? EventAnalyzer.decodePayload(.network, record.payloadJSON)
        guard case .network(let request)? = decoded else { return nil }
        eventID = record.id
        occurredAt = record.occurredAt
        appVersion = record.appVersion
        osVersion = record.osVersion
        deviceModel = record.deviceModel
        page = record.page
        network = record.contextJSON.flatMap(Self.networkType) ?? "unknown"
        template = request.method + " " + request.urlTemplate
        status = request.status.map(Double.init)
        failed = request.error != nil || (request.status ?? 0) >= 500
        durationMs = record.durationMs
        totalMs = request.timings.total
        let timings = request.timings
        phases = [timings.dns, timings.connect, timings.tls, timings.request, timings.ttfb, timings.response]
    }

    /// The context's `network` member when it is a string.
    private static func networkType(_ contextJSON: String) -> String? {
        guard let tape = try? JSONTape(bytes: Array(contextJSON.utf8)), let node = tape.member(0, "network"),
              tape.nodes[node].kind == .string else { return nil }
        return tape.string(node)
    }

    /// Appends this row's values for `projectID` in the order of ``ServerStore/requestFactColumns``.
    /// On PostgreSQL, whose text cannot hold U+0000, the strings read from the JSON carry U+FFFD
    /// in its place, as the schema-9 fill gives them.
    func append(projectID: Int64, dialect: SQLDialect, to values: inout [SQLValue]) {
        func clean(_ text: String) -> String {
            dialect == .postgres && text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
        }
        values.append(.integer(projectID))
        values.append(.text(eventID))
        values.append(.integer(occurredAt))
        values.append(.text(appVersion))
        values.append(.text(osVersion))
        values.append(.text(deviceModel))
        values.append(.optional(page))
        values.append(.text(clean(network)))
        values.append(.text(clean(template)))
        values.append(.optional(status))
        values.append(.int(failed ? 1 : 0))
        values.append(.optional(durationMs))
        values.append(.real(totalMs))
        for phase in phases { values.append(.optional(phase)) }
    }
}
