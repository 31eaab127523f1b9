import Foundation
import VigilReports
import ReportFuzzing

/// Feeds JSON bytes to VigilEventReader (single events, arrays, JSON lines), then classifies,
/// fingerprints and writes each report.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVigilEvent(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    var limits = ReportLimits()
    limits.maxBytes = 1 << 20
    limits.maxReports = 16
    guard let reports = try? VigilEventReader.read(data, limits: limits) else { return 0 }
    for report in reports { FuzzPipeline.exercise(report) }
    return 0
}

/// The entry point SwiftPM's Linux link step names `main` (see ``FuzzerDriver``).
@_cdecl("FuzzReportVigilEvent_main")
public func fuzzReportVigilEventMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzerDriver.run(argc, argv, fuzzVigilEvent)
}
