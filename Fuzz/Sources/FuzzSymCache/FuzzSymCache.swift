import CFuzzDriver
import Foundation
import VigilSymbols

/// Opens the input as a SymCache (seeded with real caches): opening validates every record,
/// so whatever opens must answer lookups anywhere without reading out of bounds or looping.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSymCache(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let cache = try? SymCache(data: Data(bytes: data, count: size)) else { return 0 }
    var frames: [FrameReference] = []
    for address in stride(from: UInt64(0), to: 1 << 16, by: 13) {
        for frame in cache.lookup(relativeAddress: address, isReturnAddress: address & 1 == 0) { _ = frame.description }
        frames.removeAll(keepingCapacity: true)
        cache.frameReferences(relativeAddress: address, into: &frames)
        for frame in frames {
            if let function = frame.function { _ = cache.functionNames(at: function); _ = cache.functionAddress(at: function) }
            if let file = frame.file { _ = cache.filePath(at: file) }
        }
    }
    _ = cache.lookup(relativeAddress: .max)
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzSymCache_main")
public func fuzzSymCacheMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzSymCache(data, size)
    }
}
