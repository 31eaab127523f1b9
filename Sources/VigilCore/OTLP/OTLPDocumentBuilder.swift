import Foundation

/// Groups Vigil events into OTLP/HTTP JSON export documents: `span` and `network` events into
/// one `/v1/traces` request, every other event into one `/v1/logs` request, each grouped by
/// resource (app, device, session) in order of first appearance, under the `vigil` scope.
///
/// Pure; cost is linear in the events.
public struct OTLPDocumentBuilder: Sendable {
    /// Instrumentation scope written on every group.
    public var scope = OTLPScope(name: "vigil", version: VigilVersion.string)

    /// A builder writing the `vigil` scope.
    public init() {}

    /// The traces request for the span and network events among `events`; nil when there is
    /// none.
    public func traces(from events: [Event]) -> OTLPTraceRequest? {
        let groups = group(events) { OTLPEventMapping.span(for: $0) }
        guard !groups.isEmpty else { return nil }
        return OTLPTraceRequest(resourceSpans: groups.map { resource, spans in
            OTLPResourceSpans(resource: resource, scopeSpans: [OTLPScopeSpans(scope: scope, spans: spans)])
        })
    }

    /// The logs request for every event that is neither a span nor a network request; nil when
    /// there is none.
    public func logs(from events: [Event]) -> OTLPLogRequest? {
        let groups = group(events) { OTLPEventMapping.logRecord(for: $0) }
        guard !groups.isEmpty else { return nil }
        return OTLPLogRequest(resourceLogs: groups.map { resource, records in
            OTLPResourceLogs(resource: resource, scopeLogs: [OTLPScopeLogs(scope: scope, logRecords: records)])
        })
    }

    private struct ResourceKey: Hashable {
        var app: AppInfo
        var device: DeviceInfo
        var session: UUID
    }

    private func group<Item>(_ events: [Event], _ map: (Event) -> Item?) -> [(OTLPResource, [Item])] {
        var order: [ResourceKey] = []
        var items: [ResourceKey: [Item]] = [:]
        for event in events {
            guard let item = map(event) else { continue }
            let key = ResourceKey(app: event.app, device: event.device, session: event.session)
            if items[key] == nil { order.append(key) }
            items[key, default: []].append(item)
        }
        return order.map { key in
            (OTLPResource(attributes: OTLPResourceMapping.attributes(app: key.app, device: key.device,
                                                                     session: key.session)),
             items[key] ?? [])
        }
    }
}
