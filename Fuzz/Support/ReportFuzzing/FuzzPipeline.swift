import Foundation
import VigilReports

/// What every report fuzz target runs on a report its reader accepted: classification,
/// fingerprinting and every writer, whose output must read back without trapping.
public enum FuzzPipeline {
    public static func exercise(_ report: CrashReport) {
        let analysis = ReportAnalysis(report: report)
        _ = analysis.fingerprint.value
        for format in ReportFormat.allCases {
            guard let text = try? ReportWriter.write(report, as: format) else { continue }
            _ = try? ReportReader.read(Data(text.utf8))
        }
    }
}
