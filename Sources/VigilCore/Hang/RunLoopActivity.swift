/// The run-loop activities the hang detector is fed with, one per `CFRunLoopActivity` bit the
/// observer reports. The raw value is what hang payloads carry as `runLoopActivity`.
public enum RunLoopActivity: String, Sendable, Hashable, CaseIterable, Codable {
    /// The run loop was entered (also a nested run loop).
    case entry
    /// The loop is about to fire timers.
    case beforeTimers
    /// The loop is about to handle sources.
    case beforeSources
    /// The loop is about to sleep: the turn is over.
    case beforeWaiting
    /// The loop woke up.
    case afterWaiting
    /// The run loop was exited (also a nested run loop).
    case exit

    /// Whether the activity marks the main thread as busy (Matrix's semantics): a turn is busy
    /// from Entry, BeforeTimers, BeforeSources or AfterWaiting until BeforeWaiting or Exit.
    public var startsOrContinuesBusyTurn: Bool {
        switch self {
        case .entry, .beforeTimers, .beforeSources, .afterWaiting: return true
        case .beforeWaiting, .exit: return false
        }
    }
}
