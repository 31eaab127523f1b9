import Foundation
import VigilCore
import VigilReports

/// The ``CrashAnalyzer`` backed by `VigilReports`: an event becomes a `CrashReport`, is
/// symbolicated through the server's SymCaches, classified by the report rules and
/// fingerprinted the way `vigil report analyze` does, so the dashboard and the CLI agree.
public struct VigilReportsAnalyzer: CrashAnalyzer {
    /// An analyzer with the standard rules.
    public init() {}

    public func analyze(_ event: Event, tables: any SymbolTableSource) -> CrashAnalysis? {
        guard event.type == .crash || event.type == .hang else { return nil }
        let report = VigilEventReader.report(from: event)
        let result = ReportSymbolicator(lookup: TableLookup(tables: tables)).symbolicate(report)
        let analysis = ReportAnalysis(report: result.report, symbolication: result.summary)
        let diagnosis = analysis.diagnosis
        let classification = IssueClassification(category: diagnosis.category.rawValue, summary: diagnosis.title,
                                                  confidence: diagnosis.confidence.rawValue,
                                                  evidence: diagnosis.evidence.map(\.description), advice: diagnosis.advice)
        return CrashAnalysis(fingerprint: analysis.fingerprint.value, components: analysis.fingerprint.components,
                             provisional: analysis.fingerprint.basis == .unsymbolicated, classification: classification)
    }
}

/// The server's symbol tables as a `VigilReports.SymbolLookup`.
///
/// `@unchecked Sendable`: it wraps the processing transaction's table source and lives only
/// inside one synchronous `analyze` call on that transaction's thread.
private struct TableLookup: SymbolLookup, @unchecked Sendable {
    let tables: any SymbolTableSource

    func hasSymbols(forImage uuid: String, arch: String?) -> Bool {
        tables.table(debugID: uuid, arch: arch ?? "") != nil
    }

    func symbolicate(image uuid: String, arch: String?, imageOffset: UInt64, isReturnAddress: Bool) -> [SymbolicatedLocation] {
        guard let table = tables.table(debugID: uuid, arch: arch ?? "") else { return [] }
        return table.locations(at: imageOffset, isReturnAddress: isReturnAddress).map {
            SymbolicatedLocation(function: $0.function, file: $0.file, line: $0.line)
        }
    }
}
