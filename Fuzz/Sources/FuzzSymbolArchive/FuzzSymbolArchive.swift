import CFuzzDriver
import Foundation
import VigilServer

/// Reads the input as a symbol upload (zip, tar, tar.gz or a bare object file) the way
/// `POST /api/v1/symbols` does: it may refuse it, but must never trap or write outside its
/// scratch directory.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSymbolArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("vigil-fuzz-archive-\(getpid())")
    try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    let upload = scratch.appendingPathComponent("upload")
    guard (try? Data(bytes: data, count: size).write(to: upload)) != nil else { return 0 }
    _ = try? VigilSymbolsEngine(scratchDirectory: scratch.path).slices(ofUpload: upload)
    let left = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []
    if left != ["upload"] { fatalError("the reader left files behind: \(left)") }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzSymbolArchive_main")
public func fuzzSymbolArchiveMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzSymbolArchive(data, size)
    }
}
