import Foundation
@testable import VigilSymbols
import VigilCore
import VigilTestSupport

/// The committed fixtures of `Tests/Fixtures` (rebuilt by `Tests/Fixtures/build.sh`) and the
/// reference symbolizer the differential tests compare with.
enum SymbolFixtures {
    static var directory: URL { BuildProducts.packageRoot.appendingPathComponent("Tests/Fixtures") }

    static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }

    /// `llvm-symbolizer`: the toolchain's own, else Debian's llvm-15 one.
    static var symbolizer: URL? {
        for candidate in ["/opt/swift/usr/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer-15", "/usr/bin/llvm-symbolizer"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return URL(fileURLWithPath: candidate)
        }
        return nil
    }

    /// One object to symbolicate, as this engine opens it and as llvm-symbolizer does.
    struct Case: CustomStringConvertible, Sendable {
        /// Path given to `ObjectFile(path:)` (relative to the fixtures directory).
        var object: String
        /// The slice, for fat files.
        var arch: String?
        /// Copy the file alone into a temporary directory first, so that llvm-symbolizer finds
        /// no dSYM or debuglink companion (symbol-table-only comparisons).
        var isolate = false

        var description: String { object + (arch.map { " (\($0))" } ?? "") + (isolate ? " alone" : "") }
    }

    static let differentialCases: [Case] = [
        Case(object: "macho/app-arm64-O0.dSYM"),
        Case(object: "macho/app-arm64-O2.dSYM"),
        Case(object: "macho/app-x86_64-O2.dSYM"),
        Case(object: "macho/app-fat.dSYM", arch: "arm64"),
        Case(object: "macho/app-fat.dSYM", arch: "x86_64"),
        Case(object: "macho/libshapes-arm64.dylib.dSYM"),
        Case(object: "macho/app-arm64-O2", isolate: true),
        Case(object: "macho/app-fat", arch: "x86_64", isolate: true),
        Case(object: "elf/c-dwarf5-O0"),
        Case(object: "elf/c-dwarf5-O2"),
        Case(object: "elf/c-dwarf4-O0"),
        Case(object: "elf/c-dwarf4-O2"),
        Case(object: "elf/c-dwarf5-O2-zlib"),
        Case(object: "elf/c-dwarf5-O2-stripped.debug"),
        Case(object: "elf/c-dwarf5-O2-stripped", isolate: true),
        Case(object: "elf/swift-O"),
    ]

    /// Every instruction address of every code section (every 4 bytes on arm64, every byte on
    /// x86 where instructions vary in length), 20,000 of them sampled with a fixed seed when
    /// there are more, plus the edges around each section and the image.
    static func addresses(of slice: ObjectSlice, limit: Int = 20_000) -> (addresses: [UInt64], total: Int) {
        let step: UInt64 = slice.arch.hasPrefix("arm64") ? 4 : 1
        var all: [UInt64] = []
        var edges: Set<UInt64> = [slice.imageVMAddress, 0]
        for section in slice.parsed.sections where section.isCode && section.size > 0 {
            var address = section.address
            while address < section.address + section.size {
                all.append(address)
                address += step
            }
            edges.formUnion([section.address &- step, section.address + section.size, section.address + section.size + step])
        }
        let total = all.count
        if all.count > limit {
            var generator = SeededGenerator(seed: 0x5eed)
            all.shuffle(using: &generator)
            all = Array(all.prefix(limit))
        }
        return (Array(Set(all).union(edges)).sorted(), total)
    }
}
