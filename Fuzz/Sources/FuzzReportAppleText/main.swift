import Foundation
import VigilReports
import ReportFuzzing

/// Feeds text bytes to AppleTextReader, then classifies, fingerprints and writes the report.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppleText(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    var limits = ReportLimits()
    limits.maxBytes = 1 << 20
    guard let report = try? AppleTextReader.read(data, limits: limits) else { return 0 }
    FuzzPipeline.exercise(report)
    return 0
}

/// The entry point SwiftPM's Linux link step names `main` (see ``FuzzerDriver``).
@_cdecl("FuzzReportAppleText_main")
public func fuzzReportAppleTextMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzerDriver.run(argc, argv, fuzzAppleText)
}
