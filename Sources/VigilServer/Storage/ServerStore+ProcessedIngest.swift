import Foundation

/// One ingest request's new events with their analyses, to be stored already processed.
struct ProcessedInsert: Sendable {
    /// The owning project.
    var projectID: Int64
    /// The rows to insert, distinct ids.
    var records: [EventRecord]
    /// `analyses[i]` is the analysis of `records[i]`.
    var analyses: [EventAnalysis]
    /// When the server received the request (ms since 1970).
    var receivedAt: Int64
    /// The row an ``IngestJournal`` (the ClickHouse spool) writes for `records[i]`, encoded on
    /// the request's thread; nil without one.
    var journalRows: [Data]? = nil
}

/// Another transaction stored some of a group's events between its duplicate check and its
/// insert (two servers on one PostgreSQL database given the same batch): the group's issue and
/// roll-up counts would include them, so the transaction is rolled back and tried again.
struct ConcurrentEventInsert: Error, CustomStringConvertible {
    /// Events the insert expected to store.
    var expected: Int
    /// Events it stored.
    var stored: Int

    var description: String { "another transaction stored \(expected - stored) of \(expected) events first" }
}

extension ServerStore {
    /// Stores the events of `items` already processed at `now` (ms) — with their results,
    /// issues, roll-ups and missing symbols — in the caller's transaction; returns, per item,
    /// the ids it newly stored. Events the project already has (or an earlier item of the group
    /// brings) are skipped and contribute nothing.
    ///
    /// `checkDuplicates` false skips the duplicate query, betting that the events are new (a
    /// batch is rarely sent twice): then any event already stored fails the insert with a unique
    /// violation, which throws ``ConcurrentEventInsert`` like a concurrent insert does, and the
    /// caller rolls back and calls again with the check. Throws ``ConcurrentEventInsert`` when
    /// another transaction stored some of the events after the duplicate check; the caller rolls
    /// back and calls again.
    /// Cost: one duplicate query per 100 events (with the check), the issue and roll-up upserts of
    /// ``apply(_:on:now:)``, and the rows' insert — one `COPY` on PostgreSQL without the check,
    /// multi-row `INSERT`s of 100 otherwise; each event row is written once.
    /// The group's issue transitions go to `onTransitions` inside the transaction, before the
    /// counts (see ``IssueTransitionHandler``). `rows` and `rollups` say how much of each event
    /// and which roll-ups the main database keeps (``EventRowContent``, ``RollupScope``).
    static func insertProcessed(_ items: [ProcessedInsert], on connection: any DatabaseConnection, now: Int64,
                                checkDuplicates: Bool = true, onTransitions: IssueTransitionHandler? = nil,
                                rows: EventRowContent = .whole, rollups: RollupScope = .all) throws -> [Set<String>] {
        // 1. Which events are new: not stored before, not earlier in this group.
        var existing: [Int64: Set<String>] = [:]
        if checkDuplicates {
            for (projectID, ids) in Dictionary(grouping: items, by: \.projectID).mapValues({ $0.flatMap { $0.records.map(\.id) } }) {
                existing[projectID] = try storedIDs(projectID: projectID, among: ids, on: connection)
            }
        }
        var fresh: [[Int]] = []
        var analyses: [EventAnalysis] = []
        for item in items {
            var indices: [Int] = []
            for (index, record) in item.records.enumerated() {
                guard existing[item.projectID, default: []].insert(record.id).inserted else { continue }
                indices.append(index)
                analyses.append(item.analyses[index])
            }
            fresh.append(indices)
        }
        let batch = ProcessingBatch(analyses, rollups: rollups)
        // 2. Issues first: the rows carry their issue's id.
        var transitions: [IssueTransition] = []
        let issueIDs = try upsertIssues(batch, on: connection, now: now, transitions: &transitions)
        // 3. The rows, in (project, id) order like every multi-row write (sorted as positions,
        //    so that records and analyses are not copied).
        var order: [(item: Int, index: Int)] = []
        order.reserveCapacity(analyses.count)
        for (itemIndex, indices) in fresh.enumerated() {
            for index in indices { order.append((itemIndex, index)) }
        }
        order.sort { a, b in
            let left = items[a.item].projectID, right = items[b.item].projectID
            return left != right ? left < right : items[a.item].records[a.index].id < items[b.item].records[b.index].id
        }
        var arguments: [SQLValue] = []
        arguments.reserveCapacity(order.count * processedColumns.count)
        for (itemIndex, index) in order {
            let projectID = items[itemIndex].projectID
            let issue = items[itemIndex].analyses[index].issue
            let issueID = issue.flatMap { issueIDs[IssueKey(projectID: projectID, fingerprint: $0.fingerprint.value)] }
            appendArguments(of: rows.stored(items[itemIndex].records[index], hasIssue: issue != nil), projectID: projectID,
                            received: items[itemIndex].receivedAt, to: &arguments)
            arguments.append(.optional(issue?.fingerprint.value))
            arguments.append(.optional(issueID))
            arguments.append(.optional(issue?.framesJSON))
            arguments.append(.int(1))
            arguments.append(.integer(now))
        }
        var storedCount = 0
        if checkDuplicates {
            // After the check, an id stored meanwhile is skipped here and caught by the count below.
            storedCount = try connection.insertRowsInStatements(into: "apm_event", columns: processedColumns, values: arguments,
                                                                clause: "ON CONFLICT (project_id, id) DO NOTHING")
        } else {
            // Betting the events are new: a plain insert (COPY on PostgreSQL), which fails on a
            // stored id instead of probing the primary key once more per row to skip it.
            do {
                storedCount = try connection.insertRows(into: "apm_event", columns: processedColumns, values: arguments)
            } catch let error as DatabaseError where error.isUniqueViolation {
                // The bet lost: some event was stored already. The caller rolls back and checks.
                throw ConcurrentEventInsert(expected: order.count, stored: 0)
            }
        }
        guard storedCount == order.count else { throw ConcurrentEventInsert(expected: order.count, stored: storedCount) }
        // The group's request facts, one write per project, from the payloads decoded at ingest.
        // With the events elsewhere (`--events`), their store serves the request views (EventRowContent).
        var facts: [Int64: [RequestFact]] = [:]
        for (item, indices) in zip(items, fresh) where rows == .whole {
            for index in indices {
                if let fact = RequestFact(item.records[index], payload: item.analyses[index].event.decoded?.payload) {
                    facts[item.projectID, default: []].append(fact)
                }
            }
        }
        for (projectID, projectFacts) in facts.sorted(by: { $0.key < $1.key }) {
            try Self.writeRequestFacts(on: connection, projectID: projectID, facts: projectFacts)
        }
        var counts = EventCountDelta()
        for (item, indices) in zip(items, fresh) { counts.add(projectID: item.projectID, state: 1, indices.count) }
        // 4. Roll-ups and missing symbols (which may queue the new rows for re-processing).
        try applyAggregates(batch, issueIDs: issueIDs, on: connection, now: now, counts: &counts)
        if let onTransitions, !transitions.isEmpty { try onTransitions(transitions, connection) }
        // 5. The counts, last (see EventCountDelta).
        try counts.write(on: connection)
        return zip(items, fresh).map { item, indices in Set(indices.map { item.records[$0].id }) }
    }

    /// The columns of a processed row, in the order of its values.
    private static let processedColumns = recordColumns + ["fingerprint", "issue_id", "frames_json", "state", "processed_at"]

    /// The ids among `ids` that the project already has.
    private static func storedIDs(projectID: Int64, among ids: [String], on connection: any DatabaseConnection) throws -> Set<String> {
        var found = Set<String>()
        var start = 0
        while start < ids.count {
            var chunk = Array(ids[start..<min(start + insertChunk, ids.count)])
            start += chunk.count
            // Padded with its last id to a full chunk, so one prepared statement serves every size.
            if let last = chunk.last { chunk += Array(repeating: last, count: insertChunk - chunk.count) }
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            for row in try connection.query("SELECT id FROM apm_event WHERE project_id = ? AND id IN (\(marks))",
                                            [.integer(projectID)] + chunk.map { .text($0) }) {
                if let id = row[0].string { found.insert(id) }
            }
        }
        return found
    }
}
