/// Something the ``HangDetector`` tells its caller to do.
public enum HangDetectorOutput: Sendable, Hashable {
    /// A busy turn passed the threshold: persist the marker (a process killed before
    /// ``hangEnded(_:_:)`` becomes a `fatal` hang on the next start).
    case hangBegan(HangMarker)
    /// The hang goes on: rewrite the marker (emitted at most once per marker refresh interval,
    /// and when the hang passes the fatal threshold).
    case hangUpdated(HangMarker)
    /// The hang is over, reported or not: delete the marker. Always follows a
    /// ``hangBegan(_:)``, exactly once.
    case hangEnded(HangMarker, HangOutcome)
    /// A hang event to emit (wrap into an `Event` with `.hang(payload)`; the runtime may fill in
    /// `cpuPercent` and `memoryBytes`). Always directly after its ``hangEnded(_:_:)``.
    case report(HangPayload)
}
