/// A crash report file format this module reads and writes.
public enum ReportFormat: String, Codable, Sendable, CaseIterable {
    /// Apple's JSON crash report (`.ips`, iOS 15 / macOS 12 and later): a one-line metadata
    /// object, then the report object. Also used for jetsam (`bug_type` 298) and stackshot hang
    /// reports (`bug_type` 288, 409).
    case ips
    /// Apple's text crash report (`.crash`), as written by devices up to iOS 14 and by Xcode's
    /// and Console's translation of `.ips` files since.
    case appleText
    /// A MetricKit `MXDiagnosticPayload` JSON representation.
    case metricKit
    /// Vigil's own event JSON (`crash` and `hang` events, schema version 1).
    case vigil
    /// KSCrash's native JSON report (read only; written as one of the other formats).
    case ksCrash
}

/// What a report describes.
public enum ReportKind: String, Codable, Sendable, CaseIterable {
    /// The process died: a crash, an abort, or a termination by the system.
    case crash
    /// The main thread stopped responding (a hang or spin report, or a MetricKit hang diagnostic).
    case hang
    /// The process used too much CPU (MetricKit CPU-exception diagnostic, `EXC_RESOURCE` CPU).
    case cpuException
    /// The process wrote too much to disk (MetricKit disk-write-exception diagnostic).
    case diskWriteException
    /// A slow launch (MetricKit app-launch diagnostic).
    case launch
    /// The system reclaimed memory by killing processes (a jetsam event report).
    case jetsam
}
