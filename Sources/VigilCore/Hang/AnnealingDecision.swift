/// Whether ``AnnealingFilter`` lets a report through.
public enum AnnealingDecision: Sendable, Hashable {
    /// Report it: a new hot stack, or the same one after the main thread recovered.
    case report
    /// Do not report it: the same hot stack as the previous report, before recovery.
    case annealed
}
