import Foundation
import Testing
@testable import VigilSymbols

/// zstd-compressed ELF debug sections, and the symbol-table fallback when the DWARF of a file
/// cannot be read.
@Suite("Compressed and unreadable debug information")
struct CompressedDebugInfoTests {
    @Test("zstd-compressed debug sections symbolicate exactly as the uncompressed build, inline frames included")
    func zstdSectionsMatchUncompressed() throws {
        let zstd = try ObjectFile(path: SymbolFixtures.path("elf/c-dwarf5-O2-zstd")).slice(arch: nil)
        let compressed = zstd.parsed.sections.filter { if case .elfZstd = $0.compression { return true } else { return false } }
        #expect(compressed.count >= 5, "\(zstd.parsed.sections.map(\.name))")
        let plain = try ObjectFile(path: SymbolFixtures.path("elf/c-dwarf5-O2")).slice(arch: nil)
        let zstdOutput = try SymCacheWriter().write(zstd)
        #expect(zstdOutput.usedDWARF && zstdOutput.warnings.isEmpty, "\(zstdOutput.warnings)")
        let zstdCache = try SymCache(data: zstdOutput.data)
        let plainCache = try SymCache(building: plain)
        let (addresses, _) = SymbolFixtures.addresses(of: plain)
        var inlined = 0
        for address in addresses {
            let expected = plainCache.lookup(vmAddress: address)
            #expect(zstdCache.lookup(vmAddress: address) == expected, "0x\(String(address, radix: 16))")
            if expected.count > 1 { inlined += 1 }
        }
        #expect(addresses.count > 100)
        #expect(inlined > 0)
    }

    @Test("a corrupt zstd stream is a typed error, never a trap")
    func corruptZstdStream() throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: SymbolFixtures.path("elf/c-dwarf5-O2-zstd")))
        let slice = try ObjectFile(data: data, name: "zstd").slice(arch: nil)
        let info = try #require(slice.parsed.sections.first { $0.name == ".debug_info" })
        let start = Int(try #require(info.fileOffset)) + 24
        for index in start + 4..<min(start + 64, Int(info.fileOffset! + info.fileSize)) { data[index] ^= 0x5A }
        let broken = try ObjectFile(data: data, name: "zstd-broken").slice(arch: nil)
        #expect(throws: SymbolsError.self) { _ = try DWARFSections(slice: broken) }
    }

    @Test("a file whose DWARF cannot be read symbolicates from its symbol table, with a warning, as llvm-symbolizer does")
    func symbolTableFallback() throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: SymbolFixtures.path("elf/c-dwarf5-O2-zstd")))
        let slice = try ObjectFile(data: data, name: "zstd").slice(arch: nil)
        let info = try #require(slice.parsed.sections.first { $0.name == ".debug_info" })
        // An unknown compression type (ch_type 0x7fff) in the section header: the DWARF cannot be read.
        let offset = Int(try #require(info.fileOffset))
        data[offset] = 0xFF
        data[offset + 1] = 0x7F
        let broken = try ObjectFile(data: data, name: "unreadable-dwarf").slice(arch: nil)
        let output = try SymCacheWriter().write(broken)
        #expect(!output.usedDWARF)
        #expect(output.warnings.contains { $0.message.contains("symbol table") && $0.message.contains("ch_type 32767") }, "\(output.warnings)")
        let cache = try SymCache(data: output.data)
        let plain = try SymCache(building: try ObjectFile(path: SymbolFixtures.path("elf/c-dwarf5-O2")).slice(arch: nil))
        // Every address gets the function the symbol table names: the outermost DWARF function.
        let (addresses, _) = SymbolFixtures.addresses(of: broken)
        var named = 0
        for address in addresses {
            guard let expected = plain.lookup(vmAddress: address).last?.function else { continue }
            let frames = cache.lookup(vmAddress: address)
            #expect(frames.count == 1)
            #expect(frames.first?.line == 0)
            if let function = frames.first?.function {
                #expect(function == expected, "0x\(String(address, radix: 16))")
                named += 1
            }
        }
        #expect(named > 100)
    }
}
