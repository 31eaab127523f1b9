import CFuzzDriver
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

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzRawCrashReport_main")
public func fuzzRawCrashReportMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzRawCrashReport(data, size)
    }
}
