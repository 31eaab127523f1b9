import VigilServer

/// The engines the server plugs in: symbolication from `VigilSymbols`, crash-report reading
/// and classification from `VigilReports`. Nil until those modules provide them; the server
/// then records missing symbols and answers `POST reports` with 415.
enum ServerEngines {
    static let symbolication: (any SymbolicationEngine)? = nil
    static let reportImporter: (any CrashReportImporter)? = nil
    static let classifier: (any IssueClassifier)? = nil
}
