import Foundation
import VigilCore

/// Builds flame graphs from stored events: reads the most recent hang (or frame) events that
/// match, symbolicates their stacks through the server's symbol tables (``StackResolver``, the
/// same path processing takes, so in-app frames follow ``InAppPolicy``) and merges them into a
/// ``FlameTree``.
///
/// Threading: a value; safe to use from any request thread. Cost: one indexed query of at most
/// ``FlameGraphReport/eventLimit`` rows, then a symbol lookup per distinct address per event
/// (tables come from the shared ``SymbolTableCache``).
public struct StackProfiler: Sendable {
    let store: ServerStore
    let symbolTables: SymbolTableCache
    let policy: InAppPolicy

    /// A profiler over `store`'s events and `symbolTables`.
    public init(store: ServerStore, symbolTables: SymbolTableCache, policy: InAppPolicy = InAppPolicy()) {
        self.store = store
        self.symbolTables = symbolTables
        self.policy = policy
    }

    /// Narrowest node kept, as a fraction of all samples (0.2%: about 2 px of a 1,000 px graph).
    public static let minimumFraction = 0.002
    /// Deepest level kept below the root.
    public static let maximumDepth = 64
    /// Most frames drawn (the lightest go first): bounds the SVG at a few hundred kilobytes.
    public static let maximumNodes = 2_000

    /// Hang events' sampled stacks (each stack weighted by its sample count) within `filter`
    /// (its page included), optionally of one hang issue.
    public func hangs(projectID: Int64, filter: DashboardFilter, now: Date, issueID: Int64? = nil) throws -> FlameGraphReport {
        // Only hangs with sampled stacks (some producers send none) take one of the slots.
        let query = EventSampleQuery(type: "hang", issueID: issueID, payloadContains: ["\"frames\"", "\"hotStack\""],
                                     limit: FlameGraphReport.eventLimit)
        let events = try store.eventSamples(projectID: projectID, query: query, filter: filter, now: now)
        return build(source: "hangs", projectID: projectID, events: events) { payload in
            guard case .hang(let hang) = payload else { return [] }
            if !hang.stacks.isEmpty { return hang.stacks.map { ($0.frames, Int64(max(0, $0.count))) } }
            return hang.hotStack.map { [($0, Int64(1))] } ?? []
        }
    }

    /// Frozen frames' main-thread stacks (one sample per frozen frame) within `filter`.
    public func frozenFrames(projectID: Int64, filter: DashboardFilter, now: Date) throws -> FlameGraphReport {
        let events = try store.eventSamples(projectID: projectID, query: EventSampleQuery(type: "frames", payloadContains: ["\"stack\""],
                                                                                          limit: FlameGraphReport.eventLimit),
                                            filter: filter, now: now)
        return build(source: "frozen", projectID: projectID, events: events) { payload in
            guard case .frames(let frames) = payload else { return [] }
            let each = (frames.frozenFrames ?? []).compactMap { $0.stack }.filter { !$0.isEmpty }
            if !each.isEmpty { return each.map { ($0, Int64(1)) } }
            return frames.stack.map { [($0, Int64(1))] } ?? []
        }
    }

    private func build(source: String, projectID: Int64, events: [EventSample],
                       stacks: (EventPayload) -> [([Address], Int64)]) -> FlameGraphReport {
        let type: EventType = source == "hangs" ? .hang : .frames
        let tables = symbolTables.view(projectID: projectID, database: store.database, bypassNegative: false)
        var tree = FlameTree()
        var withStacks = 0
        for event in events {
            guard let payload = EventAnalyzer.decodePayload(type, event.payloadJSON) else { continue }
            let weighted = stacks(payload).filter { !$0.0.isEmpty && $0.1 > 0 }
            guard !weighted.isEmpty else { continue }
            withStacks += 1
            let images = event.imagesJSON.flatMap(EventAnalyzer.decodeImages) ?? []
            var resolver = StackResolver(images: images, policy: policy, tables: tables)
            for (addresses, count) in weighted {
                // Innermost first as captured; a flame graph grows from the outermost frame.
                let frames = resolver.resolve(addresses).reversed().map { FlameFrame(name: $0.label, inApp: $0.inApp) }
                tree.add(Array(frames), count: count)
            }
        }
        return FlameGraphReport(source: source, events: events.count, eventsWithStacks: withStacks, samples: tree.samples,
                                stacks: tree.stacks, minimumFraction: Self.minimumFraction, maximumDepth: Self.maximumDepth,
                                truncated: tree.truncated,
                                root: tree.root(minimumFraction: Self.minimumFraction, maximumDepth: Self.maximumDepth,
                                                maximumNodes: Self.maximumNodes))
    }
}
