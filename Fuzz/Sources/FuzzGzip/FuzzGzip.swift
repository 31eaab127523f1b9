import CFuzzDriver
import Foundation
import VigilTransport

/// Inflates the input with a 1 MiB limit (never more output, never a trap), and checks that
/// compressing and inflating it again gives it back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    if let output = try? Gzip.decompress(input, limit: 1 << 20), output.count > 1 << 20 {
        fatalError("inflate exceeded its limit: \(output.count) bytes")
    }
    guard let compressed = try? Gzip.compress(input) else { fatalError("compress failed on \(size) bytes") }
    guard let restored = try? Gzip.decompress(compressed, limit: max(size, 1)), restored == input else {
        fatalError("gzip round trip lost data on \(size) bytes")
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzGzip_main")
public func fuzzGzipMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzGzip(data, size)
    }
}
