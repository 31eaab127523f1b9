import CFuzzDriver
import Foundation
import VigilSymbols

/// Reads the input as the stored bytes of a `SHF_COMPRESSED` `.debug_info` section (an
/// `Elf64_Chdr`, then the compressed stream: seeded with the zstd sections of
/// `Tests/Fixtures/elf/c-dwarf5-O2-zstd`), wrapped in a minimal ELF file, and builds a SymCache
/// from it: zstd decompression (libzstd), the size checks around it, then the DWARF reader on
/// what comes out. Any error must be a `SymbolsError`; a trap, a hang or unbounded memory is a
/// finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZstdSection(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let section = Data(bytes: data, count: size)
    guard let file = try? ObjectFile(data: MinimalELF.wrapping(debugInfo: section), name: "fuzz-zstd") else { return 0 }
    for slice in file.slices {
        guard let output = try? SymCacheWriter().write(slice) else { continue }
        _ = try? SymCache(data: output.data)
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzZstdSection_main")
public func fuzzZstdSectionMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzZstdSection(data, size)
    }
}

/// An x86_64 ELF executable with three sections: null, a compressed `.debug_info` holding the
/// given bytes, and `.shstrtab`.
enum MinimalELF {
    static func wrapping(debugInfo: Data) -> Data {
        let names = Data("\0.debug_info\0.shstrtab\0".utf8)
        var out = Data()
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        let namesOffset = 64
        let infoOffset = namesOffset + names.count
        var headersOffset = infoOffset + debugInfo.count
        headersOffset += (8 - headersOffset % 8) % 8
        out.append(contentsOf: [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        u16(2); u16(0x3E); u32(1); u64(0); u64(0); u64(UInt64(headersOffset)); u32(0)
        u16(64); u16(56); u16(0); u16(64); u16(3); u16(2)
        out.append(names)
        out.append(debugInfo)
        out.append(Data(count: headersOffset - out.count))
        func header(name: UInt32, type: UInt32, flags: UInt64, offset: Int, size: Int) {
            u32(name); u32(type); u64(flags); u64(0); u64(UInt64(offset)); u64(UInt64(size)); u32(0); u32(0); u64(1); u64(0)
        }
        header(name: 0, type: 0, flags: 0, offset: 0, size: 0)
        header(name: 1, type: 1, flags: 0x800, offset: infoOffset, size: debugInfo.count) // SHF_COMPRESSED
        header(name: 13, type: 3, flags: 0, offset: namesOffset, size: names.count)
        return out
    }
}
