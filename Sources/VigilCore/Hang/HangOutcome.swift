/// How a hang that began ended up: reported, or why not.
public enum HangOutcome: String, Sendable, Hashable, CaseIterable, Codable {
    /// A ``HangDetectorOutput/report(_:)`` was emitted for it.
    case reported
    /// Same hot stack as the previous report before the main thread recovered (annealing).
    case annealed
    /// Its top frame already hit the daily cap.
    case capped
    /// Frames kept being rendered during it, late for less than the non-fully-blocking share:
    /// the main thread stayed responsive, so it is not a hang.
    case responsive
    /// It turned out shorter than the threshold (a tick and the turn's end crossed in delivery).
    case belowThreshold
    /// A late watchdog tick showed the process was suspended during it; measurement restarted.
    case suspended
    /// An input stream was resynchronised after out-of-order input; the measurement was
    /// abandoned.
    case abandoned
}
