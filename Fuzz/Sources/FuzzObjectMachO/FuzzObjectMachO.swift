import CFuzzDriver
import Foundation
import VigilSymbols

/// Reads the input as an object file (seeded with thin and fat Mach-O and dSYMs): every slice
/// it lists is turned into a SymCache and looked up. Any error must be a `SymbolsError`;
/// a trap, a hang or unbounded memory is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzObjectMachO(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ObjectFuzzing.run(Data(bytes: data, count: size))
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzObjectMachO_main")
public func fuzzObjectMachOMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzObjectMachO(data, size)
    }
}

/// What both object fuzz targets do with their input.
enum ObjectFuzzing {
    static func run(_ input: Data) {
        guard let file = try? ObjectFile(data: input, name: "fuzz") else { return }
        for slice in file.slices {
            _ = slice.description
            guard let output = try? SymCacheWriter().write(slice) else { continue }
            guard let cache = try? SymCache(data: output.data) else {
                fatalError("the writer produced a SymCache the reader refuses")
            }
            var address: UInt64 = 0
            for _ in 0..<64 {
                for frame in cache.lookup(relativeAddress: address) { _ = frame.description }
                address = address &* 6364136223846793005 &+ 1442695040888963407
                address %= 1 << 20
            }
        }
    }
}
