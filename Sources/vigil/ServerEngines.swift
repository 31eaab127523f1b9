import Foundation
import VigilServer

/// The engines the server plugs in: symbolication from `VigilSymbols`, crash-report reading,
/// classification and fingerprints from `VigilReports`.
enum ServerEngines {
    static func symbolication(scratch: String) -> any SymbolicationEngine {
        VigilSymbolsEngine(scratchDirectory: scratch)
    }
    static let reportImporter: any CrashReportImporter = VigilReportsImporter()
    static let crashAnalyzer: any CrashAnalyzer = VigilReportsAnalyzer()
}
