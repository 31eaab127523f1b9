import Foundation
import Testing
@testable import VigilSymbols

@Suite("Object files: Mach-O, fat, ELF, dSYM bundles")
struct ObjectFileTests {
    @Test("a dSYM bundle path resolves to its DWARF file and reports the UUID llvm-dwarfdump reports")
    func dSYMBundle() throws {
        let file = try ObjectFile(path: SymbolFixtures.path("macho/app-arm64-O2.dSYM"))
        #expect(file.path?.hasSuffix("Contents/Resources/DWARF/app-arm64-O2") == true)
        #expect(file.container == .machO)
        let slice = try file.slice(arch: nil)
        #expect(slice.arch == "arm64")
        #expect(slice.kind == .debugCompanion)
        #expect(slice.hasDWARF)
        #expect(slice.imageVMAddress == 0x1_0000_0000)
        #expect(slice.platform == "iOS 15.0")
        let output = try ToolOutput.run("/usr/bin/llvm-dwarfdump-15", ["--uuid", file.path!])
        #expect(output.contains("UUID: \(slice.id!.description) (arm64)"), "\(output)")
    }

    @Test("a fat dSYM lists both slices and selects each by --arch, aarch64 meaning arm64")
    func fatSlices() throws {
        let file = try ObjectFile(path: SymbolFixtures.path("macho/app-fat.dSYM"))
        #expect(file.container == .fat)
        #expect(Set(file.architectures) == ["arm64", "x86_64"])
        let output = try ToolOutput.run("/usr/bin/llvm-dwarfdump-15", ["--uuid", file.path!])
        for arch in ["arm64", "x86_64"] {
            let slice = try file.slice(arch: arch)
            #expect(slice.arch == arch)
            #expect(slice.fileOffset > 0)
            #expect(output.contains("UUID: \(slice.id!.description) (\(arch))"))
            #expect(file.slice(id: slice.id!)?.arch == arch)
        }
        #expect(try file.slice(arch: "aarch64").arch == "arm64")
    }

    @Test("an absent architecture is an error that names the architectures present")
    func missingArchitecture() throws {
        let file = try ObjectFile(path: SymbolFixtures.path("macho/app-fat"))
        let missing = #expect(throws: SymbolsError.self) { try file.slice(arch: "armv7") }
        #expect(missing?.kind == .architectureNotFound)
        #expect(missing?.message.contains("x86_64, arm64") == true, "\(String(describing: missing))")
        let ambiguous = #expect(throws: SymbolsError.self) { try file.slice(arch: nil) }
        #expect(ambiguous?.kind == .architectureNotFound)
        #expect(ambiguous?.description.contains("--arch") == true)
    }

    @Test("ELF files report their GNU build id, kind, debuglink and image base")
    func elfFacts() throws {
        let slice = try ObjectFile(path: SymbolFixtures.path("elf/c-dwarf5-O2")).slice(arch: nil)
        #expect(slice.format == .elf)
        #expect(slice.arch == "x86_64")
        #expect(slice.kind == .executable)
        #expect(slice.hasDWARF)
        #expect(slice.imageVMAddress == 0x200000)
        #expect(slice.id?.kind == .buildID)
        let notes = try ToolOutput.run("/usr/bin/llvm-readelf-15", ["-n", SymbolFixtures.path("elf/c-dwarf5-O2")])
        #expect(notes.contains("Build ID: \(slice.id!.description)"), "\(notes)")
        let stripped = try ObjectFile(path: SymbolFixtures.path("elf/c-dwarf5-O2-stripped")).slice(arch: nil)
        #expect(!stripped.hasDWARF)
        #expect(stripped.debugLink == "c-dwarf5-O2-stripped.debug")
        #expect(stripped.id == slice.id)
        let debug = try ObjectFile(path: SymbolFixtures.path("elf/c-dwarf5-O2-stripped.debug")).slice(arch: nil)
        #expect(debug.kind == .debugCompanion)
        #expect(debug.hasDWARF)
        let swift = try ObjectFile(path: SymbolFixtures.path("elf/swift-O")).slice(arch: nil)
        #expect(swift.kind == .executable) // a PIE: ET_DYN with an interpreter
        #expect(swift.imageVMAddress == 0)
    }

    @Test("compressed ELF debug sections inflate to what the uncompressed build has")
    func compressedSections() throws {
        let slice = try ObjectFile(path: SymbolFixtures.path("elf/c-dwarf5-O2-zlib")).slice(arch: nil)
        let compressed = slice.parsed.sections.filter { if case .elfZlib = $0.compression { return true } else { return false } }
        #expect(!compressed.isEmpty)
        let sections = try DWARFSections(slice: slice)
        let info = DWARFDebugInfo(sections: sections)
        #expect(info.diagnostics.isEmpty)
        #expect(info.units.count == 3)
        #expect(info.records.count > 10)
    }

    @Test("opening bytes gives the same slices as opening the path")
    func fromData() throws {
        let path = SymbolFixtures.path("macho/app-fat")
        let fromPath = try ObjectFile(path: path)
        let fromData = try ObjectFile(data: Data(contentsOf: URL(fileURLWithPath: path)), name: "app-fat")
        #expect(fromData.slices.map(\.id) == fromPath.slices.map(\.id))
        #expect(fromData.slices.map(\.arch) == fromPath.slices.map(\.arch))
        #expect(fromData.slices[0].imageName == "app-fat")
    }

    @Test("identifiers parse in any spelling and print like crash reports")
    func identifiers() throws {
        let uuid = try #require(DebugIdentifier("82d13d98219e3040b62a07a297007a7c"))
        #expect(uuid.kind == .uuid)
        #expect(uuid.description == "82D13D98-219E-3040-B62A-07A297007A7C")
        #expect(DebugIdentifier("82D13D98-219E-3040-B62A-07A297007A7C") == uuid)
        let build = try #require(DebugIdentifier("24EA14DE2A12E69F7BFEEFE10B492FBE6E554690"))
        #expect(build.kind == .buildID)
        #expect(build.description == "24ea14de2a12e69f7bfeefe10b492fbe6e554690")
        #expect(DebugIdentifier("xyz") == nil)
        #expect(DebugIdentifier("abc") == nil)
        #expect(DebugIdentifier("") == nil)
    }
}
