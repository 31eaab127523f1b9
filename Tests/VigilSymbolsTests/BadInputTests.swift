import Foundation
import Testing
@testable import VigilSymbols

/// Hostile and broken input: every parser answers with a `SymbolsError` naming what and where,
/// in bounded time and memory, and keeps what it could read.
@Suite("Bad input: typed errors, no traps, bounded work")
struct BadInputTests {
    private func open(_ bytes: [UInt8]) throws(SymbolsError) -> ObjectFile {
        try ObjectFile(data: Data(bytes), name: "synthetic")
    }

    @Test("empty, tiny and unknown files are rejected with the reason")
    func notObjectFiles() throws {
        let empty = #expect(throws: SymbolsError.self) { try open([]) }
        #expect(empty?.kind == .truncated)
        let tiny = #expect(throws: SymbolsError.self) { try open([0xcf, 0xfa]) }
        #expect(tiny?.kind == .truncated)
        let text = #expect(throws: SymbolsError.self) { try open(Array("hello, world\n".utf8)) }
        #expect(text?.kind == .badMagic)
        #expect(text?.fileOffset == 0)
    }

    @Test("every truncation of a Mach-O, a fat file and an ELF gives an object or a typed error",
          arguments: ["macho/app-arm64-O2.dSYM/Contents/Resources/DWARF/app-arm64-O2", "macho/app-fat", "elf/c-dwarf5-O2", "elf/swift-O"])
    func truncations(_ fixture: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: SymbolFixtures.path(fixture))))
        // Every length through the headers, then every 997 bytes: the end of each structure.
        var lengths = Array(0..<min(bytes.count, 1200))
        lengths += stride(from: 1200, to: bytes.count, by: 997)
        for length in lengths {
            do throws(SymbolsError) {
                let file = try open(Array(bytes[0..<length]))
                for slice in file.slices where slice.hasDWARF || slice.hasSymbolTable {
                    _ = try? SymCacheWriter().write(slice)
                }
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test("absurd Mach-O counts and offsets are named with their file offset")
    func machOHeaderCorruption() throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: SymbolFixtures.path("macho/app-arm64-O2"))))
        var manyCommands = original
        manyCommands.replaceSubrange(16..<20, with: DWARFBytes.u32(0x7fff_ffff)) // ncmds
        let tooMany = #expect(throws: SymbolsError.self) { try open(manyCommands) }
        #expect(tooMany?.kind == .limitExceeded)
        #expect(tooMany?.fileOffset == 16)

        var zeroSize = original
        zeroSize.replaceSubrange(36..<40, with: DWARFBytes.u32(0)) // first cmdsize
        let malformed = #expect(throws: SymbolsError.self) { try open(zeroSize) }
        #expect(malformed?.kind == .malformed)
        #expect(malformed?.fileOffset == 32)

        var bigCommands = original
        bigCommands.replaceSubrange(20..<24, with: DWARFBytes.u32(0x7fff_0000)) // sizeofcmds
        let truncated = #expect(throws: SymbolsError.self) { try open(bigCommands) }
        #expect(truncated?.kind == .truncated)
    }

    @Test("fat headers with absurd slice counts or slices outside the file are rejected")
    func fatCorruption() throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: SymbolFixtures.path("macho/app-fat"))))
        var many = original
        many.replaceSubrange(4..<8, with: [0, 0, 0x10, 0]) // nfat_arch = 4096, big-endian
        let tooMany = #expect(throws: SymbolsError.self) { try open(many) }
        #expect(tooMany?.kind == .limitExceeded)
        var outside = original
        outside.replaceSubrange(16..<20, with: [0x7f, 0, 0, 0]) // first slice offset, big-endian
        let outOfBounds = #expect(throws: SymbolsError.self) { try open(outside) }
        #expect(outOfBounds?.kind == .outOfBounds)
        #expect(outOfBounds?.message.contains("x86_64") == true)
    }

    @Test("ELF section headers outside the file are rejected with the header's offset")
    func elfCorruption() throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: SymbolFixtures.path("elf/c-dwarf5-O2"))))
        var farHeaders = original
        farHeaders.replaceSubrange(0x28..<0x30, with: DWARFBytes.u64(1 << 40)) // e_shoff
        let error = #expect(throws: SymbolsError.self) { try open(farHeaders) }
        #expect(error?.kind == .outOfBounds)
        #expect(error?.fileOffset == 0x28)
        var bigEndian = original
        bigEndian[5] = 2
        #expect((#expect(throws: SymbolsError.self) { try open(bigEndian) })?.kind == .unsupported)
    }

    @Test("a PT_LOAD segment that runs past the end of the address space gives an image that ends there")
    func loadSegmentPastAddressSpace() throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: SymbolFixtures.path("elf/c-dwarf5-O2"))))
        func u64(at offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) } }
        let headers = Int(u64(at: 0x20)) // e_phoff
        let count = Int(bytes[0x38]) | Int(bytes[0x39]) << 8
        let load = try #require((0..<count).map { headers + $0 * 56 }.first { bytes[$0] == 1 }, "the fixture has a PT_LOAD")
        bytes.replaceSubrange(load + 0x10..<load + 0x18, with: DWARFBytes.u64(0xFFFF_FFFF_FFFF_F000)) // p_vaddr
        bytes.replaceSubrange(load + 0x28..<load + 0x30, with: DWARFBytes.u64(0x10_0000)) // p_memsz
        let slice = try open(bytes).slice(arch: nil)
        #expect(slice.imageVMAddress <= 0xFFFF_FFFF_FFFF_F000)
        #expect(slice.imageVMAddress &+ slice.imageSize == .max)
    }

    /// A subprogram at [0x1000, 0x1010) whose name comes through a chain of
    /// `DW_AT_abstract_origin` references: `chainLength` DIEs each pointing to the next, the last
    /// named `named` (or, when `named` is nil, pointing back to the subprogram: a cycle).
    private func originChain(chainLength: Int, named: String?) -> [UInt8] {
        typealias B = DWARFBytes
        let abbreviations = B.abbreviation(1, tag: 0x11, children: true, [(0x03, 0x08), (0x11, 0x01), (0x12, 0x06)])
            + B.abbreviation(2, tag: 0x2e, children: false, [(0x31, 0x13), (0x11, 0x01), (0x12, 0x06)])
            + B.abbreviation(3, tag: 0x2e, children: false, [(0x31, 0x13)])
            + B.abbreviation(4, tag: 0x2e, children: false, [(0x03, 0x08)]) + [0]
        var dies = [1] + B.string("cycle.c") + B.u64(0x1000) + B.u32(0x10)
        let first = B.firstDIEOffset + dies.count
        let dieSize = 1 + 4 + 8 + 4
        let chainStart = first + dieSize
        dies += [2] + B.u32(UInt32(chainStart)) + B.u64(0x1000) + B.u32(0x10)
        for index in 0..<chainLength {
            if index == chainLength - 1, let named {
                dies += [4] + B.string(named)
            } else {
                let next = index == chainLength - 1 ? first : chainStart + (index + 1) * 5
                dies += [3] + B.u32(UInt32(next))
            }
        }
        dies += [0]
        var elf = SyntheticELF()
        elf.add(".debug_abbrev", abbreviations)
        elf.add(".debug_info", B.unit(dies))
        return elf.bytes()
    }

    @Test("cyclic abstract_origin chains end without a name (seen set)", arguments: [1, 2, 3000])
    func cyclicReferences(_ length: Int) throws {
        let slice = try open(originChain(chainLength: length, named: nil)).slice(arch: nil)
        let started = Date()
        let output = try SymCacheWriter().write(slice)
        #expect(Date().timeIntervalSince(started) < 5)
        // No name, no line table, no symbol: nothing to say about the address, as llvm says "??".
        #expect(try SymCache(data: output.data).lookup(vmAddress: 0x1004).isEmpty)
    }

    @Test("names are found through short origin chains; chains past the hop limit are cut", arguments: [(3, true), (40, true), (3000, false)])
    func longChains(_ length: Int, _ found: Bool) throws {
        let slice = try open(originChain(chainLength: length, named: "deep_name")).slice(arch: nil)
        let started = Date()
        let cache = try SymCache(data: SymCacheWriter().write(slice).data)
        #expect(Date().timeIntervalSince(started) < 5)
        let frames = cache.lookup(vmAddress: 0x1004)
        #expect(frames.first?.rawFunction == (found ? "deep_name" : nil))
    }

    @Test("an unknown form stops its unit with an error naming the form and offset; other units still work")
    func unknownForm() throws {
        typealias B = DWARFBytes
        let abbreviations = B.abbreviation(1, tag: 0x11, children: true, [(0x03, 0x08), (0x11, 0x01), (0x12, 0x06)])
            + B.abbreviation(2, tag: 0x2e, children: false, [(0x03, 0x08), (0x11, 0x01), (0x12, 0x06)])
            + B.abbreviation(3, tag: 0x34, children: false, [(0x03, 0x7f)]) + [0] // form 0x7f does not exist
        let good = B.unit([1] + B.string("good.c") + B.u64(0x2000) + B.u32(8) + [2] + B.string("good") + B.u64(0x2000) + B.u32(8) + [0])
        let bad = B.unit([1] + B.string("bad.c") + B.u64(0x3000) + B.u32(8) + [3, 0xaa, 0xbb, 0]
                         + [2] + B.string("lost") + B.u64(0x3000) + B.u32(8) + [0])
        var elf = SyntheticELF()
        elf.add(".debug_abbrev", abbreviations)
        elf.add(".debug_info", bad + good)
        let slice = try open(elf.bytes()).slice(arch: nil)
        let output = try SymCacheWriter().write(slice)
        let warning = try #require(output.warnings.first)
        #expect(warning.kind == .unsupported)
        #expect(warning.message.contains("0x7f"))
        #expect(warning.section?.name == ".debug_info")
        #expect(warning.section?.offset == UInt64(B.firstDIEOffset + 1 + 6 + 12 + 1))
        let cache = try SymCache(data: output.data)
        #expect(cache.lookup(vmAddress: 0x2004).first?.rawFunction == "good")
    }

    @Test("thousands of DIEs sharing one huge range list cost a bounded amount of work")
    func sharedRangeList() throws {
        typealias B = DWARFBytes
        var ranges: [UInt8] = []
        for index in 0..<20_000 { ranges += B.u64(UInt64(index) * 16) + B.u64(UInt64(index) * 16 + 8) } // relative to the unit base
        ranges += B.u64(0) + B.u64(0)
        let abbreviations = B.abbreviation(1, tag: 0x11, children: true, [(0x11, 0x01), (0x12, 0x06)])
            + B.abbreviation(2, tag: 0x2e, children: false, [(0x03, 0x08), (0x55, 0x17)]) + [0]
        var dies = [1] + B.u64(0x10000) + B.u32(20_000 * 16)
        for _ in 0..<3000 { dies += [2] + B.string("f") + B.u32(0) }
        dies += [0]
        var elf = SyntheticELF()
        elf.add(".debug_abbrev", abbreviations)
        elf.add(".debug_info", B.unit(dies))
        elf.add(".debug_ranges", ranges)
        let slice = try open(elf.bytes()).slice(arch: nil)
        let started = Date()
        let output = try SymCacheWriter().write(slice)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(output.warnings.contains { $0.kind == .limitExceeded && $0.section?.name == ".debug_ranges" })
        // What was decoded before the budget ran out still symbolicates.
        let frames = try SymCache(data: output.data).lookup(vmAddress: 0x10004)
        #expect(frames.first?.rawFunction == "f", "\(frames) \(output.warnings.prefix(3))")
    }

    @Test("DIE nesting deeper than the limit is reported, not followed")
    func deepNesting() throws {
        typealias B = DWARFBytes
        let abbreviations = B.abbreviation(1, tag: 0x11, children: true, [(0x03, 0x08)])
            + B.abbreviation(2, tag: 0x0b, children: true, []) + [0] // lexical blocks with children
        let dies = [1] + B.string("deep.c") + [UInt8](repeating: 2, count: 10_000)
        var elf = SyntheticELF()
        elf.add(".debug_abbrev", abbreviations)
        elf.add(".debug_info", B.unit(dies))
        let slice = try open(elf.bytes()).slice(arch: nil)
        let output = try SymCacheWriter().write(slice)
        #expect(output.warnings.first?.kind == .limitExceeded)
        #expect(output.warnings.first?.section?.name == ".debug_info")
        let info = DWARFDebugInfo(sections: try DWARFSections(slice: slice))
        #expect(info.diagnostics.first?.kind == .limitExceeded)
    }

    @Test("unit lengths and abbreviation offsets outside their sections are errors with positions")
    func outOfBoundsUnits() throws {
        typealias B = DWARFBytes
        var elf = SyntheticELF()
        elf.add(".debug_abbrev", B.abbreviation(1, tag: 0x11, children: false, []) + [0])
        elf.add(".debug_info", B.u32(0x00ff_ffff) + B.u16(4) + B.u32(0) + [8, 1])
        let info = DWARFDebugInfo(sections: try DWARFSections(slice: try open(elf.bytes()).slice(arch: nil)))
        #expect(info.diagnostics.first?.kind == .truncated)
        #expect(info.diagnostics.first?.section?.offset == 0)

        var badAbbreviations = SyntheticELF()
        badAbbreviations.add(".debug_abbrev", [0])
        badAbbreviations.add(".debug_info", B.unit([1, 0], abbreviationOffset: 0x1000))
        let other = DWARFDebugInfo(sections: try DWARFSections(slice: try open(badAbbreviations.bytes()).slice(arch: nil)))
        #expect(other.diagnostics.first?.kind == .outOfBounds)
    }

    @Test("a compressed section claiming an impossible size is refused before allocating")
    func forgedCompressedSize() throws {
        typealias B = DWARFBytes
        // Elf64_Chdr: zlib, size 1 TiB, then 8 bytes of "stream".
        let chdr = B.u32(1) + B.u32(0) + B.u64(1 << 40) + B.u64(1) + [0x78, 0x9c, 3, 0, 0, 0, 0, 1]
        var elf = SyntheticELF()
        elf.add(".debug_info", chdr, flags: 0x800)
        elf.add(".debug_abbrev", [0])
        let slice = try open(elf.bytes()).slice(arch: nil)
        let error = #expect(throws: SymbolsError.self) { try DWARFSections(slice: slice) }
        #expect(error?.kind == .limitExceeded)
        #expect(error?.section?.name == ".debug_info")
    }

    @Test("a line program with line_range 0 keeps the rows before the bad opcode and reports it")
    func badLineProgram() throws {
        typealias B = DWARFBytes
        var program: [UInt8] = []
        program += [0, 9, 2] + B.u64(0x4000)        // DW_LNE_set_address 0x4000
        program += [1]                               // DW_LNS_copy → a row
        program += [0, 1, 1]                         // end_sequence → a sequence, needs low < high: add advance first
        program = [0, 9, 2] + B.u64(0x4000) + [1] + [2, 8] + [0, 1, 1] + [20] // copy, advance 8, end, special opcode
        var header = B.u16(4)
        let prologue: [UInt8] = [1, 1, 1, 0xfb, 0 /* line_range */, 13] + [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1] + [0] + B.string("a.c") + [0, 0, 0] + [0]
        header += B.u32(UInt32(prologue.count)) + prologue + program
        let line = B.u32(UInt32(header.count)) + header
        let abbreviations = B.abbreviation(1, tag: 0x11, children: false, [(0x10, 0x17), (0x11, 0x01), (0x12, 0x06)]) + [0]
        var elf = SyntheticELF()
        elf.add(".debug_abbrev", abbreviations)
        elf.add(".debug_info", B.unit([1] + B.u32(0) + B.u64(0x4000) + B.u32(8)))
        elf.add(".debug_line", line)
        let output = try SymCacheWriter().write(try open(elf.bytes()).slice(arch: nil))
        #expect(output.warnings.contains { $0.kind == .malformed && $0.message.contains("line_range 0") })
        let cache = try SymCache(data: output.data)
        let frame = try #require(cache.lookup(vmAddress: 0x4002).first)
        #expect(frame.fileName == "a.c")
        #expect(frame.line == 1)
    }

    @Test("a corrupted SymCache is refused at open with the field at fault, never read out of bounds")
    func corruptSymCache() throws {
        let slice = try ObjectFile(path: SymbolFixtures.path("elf/c-dwarf5-O2")).slice(arch: nil)
        let good = [UInt8](try SymCacheWriter().write(slice).data)
        _ = try SymCache(data: Data(good))
        var badMagic = good
        badMagic[0] = 0
        #expect((#expect(throws: SymbolsError.self) { try SymCache(data: Data(badMagic)) })?.kind == .badMagic)
        let truncated = #expect(throws: SymbolsError.self) { try SymCache(data: Data(good.dropLast(3))) }
        #expect(truncated?.kind == .truncated)
        var version = good
        version[6] = 9
        #expect((#expect(throws: SymbolsError.self) { try SymCache(data: Data(version)) })?.kind == .unsupported)
        var swapped = good
        swapped.swapAt(4, 5)
        #expect((#expect(throws: SymbolsError.self) { try SymCache(data: Data(swapped)) })?.message.contains("byte order") == true)
        // Every single-byte corruption of the header and tables opens or fails cleanly, and
        // whatever opens answers lookups.
        var generator = SystemRandomNumberGenerator()
        for position in 0..<good.count where position < 160 || Int.random(in: 0..<16, using: &generator) == 0 {
            var corrupt = good
            corrupt[position] ^= 0xa5
            if let cache = try? SymCache(data: Data(corrupt)) {
                for address in stride(from: UInt64(0), to: 0x3000, by: 61) { _ = cache.lookup(relativeAddress: address) }
            }
        }
    }
}
