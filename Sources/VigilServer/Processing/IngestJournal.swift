import Foundation

/// A second durable store that must hold a processed-ingest group's new events before their
/// requests are answered — the ClickHouse spool (``ClickHouseEventSink``) — written while the
/// main database commits the group instead of after it.
///
/// ``EventProcessor`` calls ``begin(_:)`` on its committer thread just before the group's
/// transaction; the journal writes and syncs every row of the group on a thread of its own,
/// unpublished, while the database commits. After the commit the processor calls
/// ``IngestJournalWrite/publish(stored:)`` with what each item newly stored, and the rows
/// become deliverable; when the transaction failed it calls ``IngestJournalWrite/discard()``.
/// Nothing is delivered for a transaction that did not commit, and a request is answered only
/// once both are durable. Threading: `begin` from one committer thread at a time.
protocol IngestJournal: Sendable {
    /// Starts writing the rows of `group` (``ProcessedInsert/journalRows`` of every item) and
    /// returns at once.
    func begin(_ group: [ProcessedInsert]) -> any IngestJournalWrite
    /// Writes and syncs `rows` (``ClickHouseEventRow/link(_:fingerprint:linked:)`` rows, each
    /// with its event id) unpublished, before the transaction that makes them true commits: a
    /// worker batch's issue links. The caller publishes them after the commit or discards them.
    func stage(_ rows: [(id: String, prefix: Data)]) throws -> any StagedJournalRows
}

/// Rows ``IngestJournal/stage(_:)`` wrote, waiting for their transaction; ended by exactly one
/// of its two methods.
protocol StagedJournalRows: Sendable {
    /// Makes the rows deliverable (the transaction committed).
    func publish() throws
    /// Drops them (the transaction failed).
    func discard()
}

/// One group's journal write under way (see ``IngestJournal``); ended by exactly one of its
/// two methods.
protocol IngestJournalWrite: Sendable {
    /// Waits for the write, then makes deliverable exactly the rows of `stored` (per item, the
    /// ids the transaction newly stored; usually every row written, else the write is redone
    /// with those alone). Throws when the rows could not be made durable: the events are then in
    /// the main database only, and the caller must journal them another way or fail the request.
    func publish(stored: [Set<String>]) throws
    /// Waits for the write and drops it (the transaction failed).
    func discard()
}
