import Foundation

/// Writes a ``CrashReport`` in any supported format.
public enum ReportWriter {
    /// The report in `format`, as UTF-8 text.
    ///
    /// - Throws: ``ReportError/cannotConvert(_:)`` when the format cannot hold the report
    ///   (a MetricKit CPU diagnostic as a Vigil event).
    public static func write(_ report: CrashReport, as format: ReportFormat) throws(ReportError) -> String {
        switch format {
        case .ips: return IPSWriter.write(report)
        case .appleText: return AppleTextWriter.write(report)
        case .metricKit: return MetricKitWriter.write(report)
        case .vigil: return try VigilEventWriter.write(report)
        case .ksCrash:
            throw .cannotConvert("KSCrash reports are read, not written: convert to vigil, ips, text or metrickit")
        }
    }
}
