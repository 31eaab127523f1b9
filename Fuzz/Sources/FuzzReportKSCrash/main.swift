import Foundation
import VigilReports
import ReportFuzzing

/// Feeds KSCrash JSON bytes to KSCrashReader, then runs everything downstream of a successful
/// read (classification, fingerprint, every writer and reading the output back) on each report.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKSCrash(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    var limits = ReportLimits()
    limits.maxBytes = 1 << 20
    guard let reports = try? KSCrashReader.read(data, limits: limits) else { return 0 }
    for report in reports { FuzzPipeline.exercise(report) }
    return 0
}

/// The entry point SwiftPM's Linux link step names `main` (see ``FuzzerDriver``).
@_cdecl("FuzzReportKSCrash_main")
public func fuzzReportKSCrashMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzerDriver.run(argc, argv, fuzzKSCrash)
}
