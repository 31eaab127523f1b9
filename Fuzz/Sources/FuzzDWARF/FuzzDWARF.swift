import CFuzzDriver
import Foundation
import VigilSymbols

/// Feeds the input to the DWARF reader as the contents of ten DWARF sections, wrapped in a
/// minimal ELF file: the first 20 bytes are the sections' lengths (little-endian u16 each, in
/// the order of `sectionNames`), the rest their bytes. This spends the fuzzer's effort on
/// units, abbreviations, forms, line programs, range lists and name chains rather than on the
/// container. The build must succeed or fail with a `SymbolsError`, and a cache that is built
/// must open and answer lookups.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDWARF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    var sections: [(String, [UInt8])] = []
    var offset = 2 * sectionNames.count
    for (index, name) in sectionNames.enumerated() {
        guard 2 * index + 1 < size else { break }
        let length = Int(input[2 * index]) | Int(input[2 * index + 1]) << 8
        let end = min(offset + length, size)
        sections.append((name, offset < end ? Array(input[offset..<end]) : []))
        offset = max(offset, end)
    }
    guard let file = try? ObjectFile(data: Data(minimalELF(sections)), name: "fuzz"),
          let slice = file.slices.first,
          let output = try? SymCacheWriter().write(slice) else { return 0 }
    guard let cache = try? SymCache(data: output.data) else { fatalError("the writer produced a SymCache the reader refuses") }
    for address in stride(from: UInt64(0), to: 1 << 16, by: 97) {
        for frame in cache.lookup(relativeAddress: address) { _ = frame.description }
    }
    return 0
}

let sectionNames = [".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_ranges",
                    ".debug_rnglists", ".debug_addr", ".debug_str_offsets", ".debug_line_str", ".debug_aranges"]

/// A 64-bit little-endian ELF file holding `sections` (PROGBITS) and a section name table.
func minimalELF(_ sections: [(String, [UInt8])]) -> [UInt8] {
    var names: [UInt8] = [0]
    var nameOffsets: [Int] = []
    for (name, _) in sections + [(".shstrtab", [])] {
        nameOffsets.append(names.count)
        names += Array(name.utf8) + [0]
    }
    var file = [UInt8](repeating: 0, count: 64)
    var offsets: [Int] = []
    for (_, bytes) in sections {
        offsets.append(file.count)
        file += bytes
    }
    let namesOffset = file.count
    file += names
    while file.count % 8 != 0 { file.append(0) }
    let headers = file.count
    func put(_ value: Int, _ width: Int) { for byte in 0..<width { file.append(UInt8(truncatingIfNeeded: value >> (8 * byte))) } }
    file += [UInt8](repeating: 0, count: 64)
    for (index, (_, bytes)) in sections.enumerated() {
        put(nameOffsets[index], 4); put(1, 4); put(0, 8); put(0, 8); put(offsets[index], 8); put(bytes.count, 8)
        put(0, 4); put(0, 4); put(1, 8); put(0, 8)
    }
    put(nameOffsets[sections.count], 4); put(3, 4); put(0, 8); put(0, 8); put(namesOffset, 8); put(names.count, 8)
    put(0, 4); put(0, 4); put(1, 8); put(0, 8)
    var header: [UInt8] = [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1] + [UInt8](repeating: 0, count: 9)
    func field(_ value: Int, _ width: Int) { for byte in 0..<width { header.append(UInt8(truncatingIfNeeded: value >> (8 * byte))) } }
    field(2, 2); field(62, 2); field(1, 4); field(0, 8); field(0, 8); field(headers, 8)
    field(0, 4); field(64, 2); field(56, 2); field(0, 2); field(64, 2); field(sections.count + 2, 2); field(sections.count + 1, 2)
    file.replaceSubrange(0..<64, with: header)
    return file
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzDWARF_main")
public func fuzzDWARFMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzDWARF(data, size)
    }
}
