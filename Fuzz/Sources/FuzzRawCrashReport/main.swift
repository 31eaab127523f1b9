import Foundation
import VigilRuntime

/// Feeds bytes to the raw crash report parser (what the next launch reads from a crashed run's
/// file), and checks what it accepts: a report is accepted only with a matching end marker, its
/// crashed thread has frames, and naming its signal and code never traps.
///
/// Needs the root package's `Vigil` product (which carries the VigilRuntime module).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRawCrashReport(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let report = try? RawCrashReportParser(maxBytes: 1 << 20).parse(data) else { return 0 }
    guard report.threads.filter(\.crashed).count == 1, report.crashedThread?.frames.isEmpty == false else {
        fatalError("accepted a report without exactly one crashed thread with frames")
    }
    guard report.length <= count, report.checksum == CrashHandler.crc32(data.prefix(report.length)) else {
        fatalError("accepted a report whose end marker does not cover its bytes")
    }
    _ = SignalDescription.name(ofSignal: report.signal)
    _ = SignalDescription.name(ofCode: report.code, signal: report.signal)
    _ = SignalDescription.isFault(code: report.code, signal: report.signal)
    return 0
}

/// SwiftPM links an executable's entry point as `<Target>_main`; hand the command line to
/// libFuzzer's driver (its documented entry for custom mains).
@_cdecl("FuzzRawCrashReport_main")
public func fuzzRawCrashReportMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var vector: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &vector, fuzzRawCrashReport)
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                                 _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt
