import Foundation
import VigilReports
import ReportFuzzing

/// Feeds `.ips` bytes to IPSReader, then runs everything downstream of a successful read
/// (classification, fingerprint, every writer) so that no later stage traps on what the
/// reader let through.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIPS(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    var limits = ReportLimits()
    limits.maxBytes = 1 << 20
    guard let report = try? IPSReader.read(data, limits: limits) else { return 0 }
    FuzzPipeline.exercise(report)
    return 0
}

/// The entry point SwiftPM's Linux link step names `main` (see ``FuzzerDriver``).
@_cdecl("FuzzReportIPS_main")
public func fuzzReportIPSMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzerDriver.run(argc, argv, fuzzIPS)
}
