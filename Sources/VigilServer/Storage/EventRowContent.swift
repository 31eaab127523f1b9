import Foundation

/// How much of each event the main database keeps in `apm_event` when it commits processed
/// events.
///
/// With the event table on ClickHouse (`--events`), the main database keeps a whole row only for
/// the events it still reads in full: those grouped into an issue (the issue page's events and
/// their diagnosis), those with binary images (stacks: symbolication again when symbols arrive,
/// flame graphs, samples) and launches (their task spans draw the launch waterfall). Every
/// other event — requests, frame windows without a frozen frame, spans, logs, sessions,
/// resources, the bulk of an app's upload — keeps an outline: its columns (id, type, times,
/// app, OS, device, page, session, duration, user, fingerprint, issue) with empty JSON, which
/// is what duplicate detection, issue counts within a filter, retention and the filter menus
/// read; its payload lives only in ClickHouse, where the dashboard reads it. No
/// `request_facts` rows are written then: ClickHouse serves the request views.
public enum EventRowContent: Sendable, Hashable {
    /// Every event whole, and `request_facts` (no event table elsewhere).
    case whole
    /// Whole rows only for events with an issue, images or launch tasks; outlines otherwise.
    case outlineUnlessRead

    /// Whether an event of `record`'s kind (with an issue or not) keeps its whole row.
    func keepsWhole(_ record: EventRecord, hasIssue: Bool) -> Bool {
        switch self {
        case .whole: return true
        case .outlineUnlessRead: return hasIssue || record.imagesJSON != nil || record.type == "launch"
        }
    }

    /// `record` as the main database keeps it: unchanged, or with its JSON emptied.
    func stored(_ record: EventRecord, hasIssue: Bool) -> EventRecord {
        guard !keepsWhole(record, hasIssue: hasIssue) else { return record }
        var outline = record
        outline.tagsJSON = "{}"
        outline.payloadJSON = "{}"
        outline.contextJSON = nil
        return outline
    }
}
