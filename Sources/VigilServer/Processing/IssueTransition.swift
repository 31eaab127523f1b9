import Foundation

/// A change in an issue's life decided while events were attached to it: the issue appeared,
/// a resolved issue regressed, or an ignored one came back.
///
/// Decided inside the transaction that stores or processes the events (the issue's row is
/// locked by its upsert there), so two servers on one PostgreSQL database never both report
/// the same change: exactly one transaction sees the state before the change. The list of a
/// transaction's transitions is handed to an ``IssueTransitionHandler`` before it commits, so
/// whatever the handler writes (an alert outbox row, say) commits or rolls back with the events.
///
/// Threading: a plain value.
public struct IssueTransition: Sendable, Hashable, Codable {
    /// What happened to the issue.
    public enum Kind: Sendable, Hashable, Codable {
        /// The issue's first events: it did not exist before this transaction.
        case newIssue
        /// A resolved issue got an event it was resolved against (from a version later than
        /// the resolving one, or, resolved without a version, that happened after the
        /// resolution): it is open again, marked regressed in `version`.
        case regressed(version: String)
        /// An ignored issue reached its limit (its N more events, or its date passed and an
        /// event came): it is open again.
        case reopenedAfterIgnore
    }

    /// The owning project.
    public var projectID: Int64
    /// The issue's database id.
    public var issueID: Int64
    /// The issue's grouping key (32 hex digits).
    public var fingerprint: String
    /// `crash` or `hang`.
    public var issueKind: String
    /// The issue's title (one line).
    public var title: String
    /// What happened.
    public var kind: Kind
    /// The event that caused it (the latest of the issue's events in the transaction).
    public var eventID: String
    /// When the transaction decided it (server time).
    public var at: Date

    /// A transition; see the properties.
    public init(projectID: Int64, issueID: Int64, fingerprint: String, issueKind: String, title: String, kind: Kind,
                eventID: String, at: Date) {
        self.projectID = projectID
        self.issueID = issueID
        self.fingerprint = fingerprint
        self.issueKind = issueKind
        self.title = title
        self.kind = kind
        self.eventID = eventID
        self.at = at
    }
}

/// Receives a transaction's issue transitions inside that transaction, before it commits, with
/// its connection (write in it to commit together; throw to roll the whole transaction back —
/// the events then wait and are processed again, so a handler must not have side effects
/// outside the database). Called only when the list is not empty, in (project, issue) order.
///
/// Threading: called on the thread running the transaction (an HTTP worker at ingest, a
/// processing worker otherwise), possibly several at once.
public typealias IssueTransitionHandler = @Sendable (_ transitions: [IssueTransition], _ connection: any DatabaseConnection) throws -> Void
