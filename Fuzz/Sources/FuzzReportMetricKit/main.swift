import Foundation
import VigilReports
import ReportFuzzing

/// Feeds JSON bytes to MetricKitReader, then classifies, fingerprints and writes each report.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetricKit(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    var limits = ReportLimits()
    limits.maxBytes = 1 << 20
    limits.maxReports = 16
    guard let reports = try? MetricKitReader.read(data, limits: limits) else { return 0 }
    for report in reports { FuzzPipeline.exercise(report) }
    return 0
}

/// The entry point SwiftPM's Linux link step names `main` (see ``FuzzerDriver``).
@_cdecl("FuzzReportMetricKit_main")
public func fuzzReportMetricKitMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzerDriver.run(argc, argv, fuzzMetricKit)
}
