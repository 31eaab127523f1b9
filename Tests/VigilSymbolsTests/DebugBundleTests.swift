import Foundation
import Testing
import VigilTestSupport
@testable import VigilSymbols

/// dSYM bundles as Xcode and other toolchains leave them: stray files, several Mach-O files,
/// a dSYM beside a stripped binary; stripped libraries; block names in atos output.
@Suite("Debug bundles and names")
struct DebugBundleTests {
    /// `App.dSYM` holding the arm64 and x86_64 DWARF files and a stray note.
    static func twoFileBundle(in directory: TemporaryDirectory) throws -> String {
        let bundle = directory.file("App.dSYM").path
        let dwarf = bundle + "/Contents/Resources/DWARF"
        try FileManager.default.createDirectory(atPath: dwarf, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: SymbolFixtures.path("macho/app-arm64-O2.dSYM/Contents/Resources/DWARF/app-arm64-O2"),
                                         toPath: dwarf + "/App-arm64")
        try FileManager.default.copyItem(atPath: SymbolFixtures.path("macho/app-x86_64-O2.dSYM/Contents/Resources/DWARF/app-x86_64-O2"),
                                         toPath: dwarf + "/App-x86_64")
        try Data("built by a script\n".utf8).write(to: URL(fileURLWithPath: dwarf + "/README.txt"))
        try Data().write(to: URL(fileURLWithPath: dwarf + "/empty"))
        return bundle
    }

    @Test("stray non-Mach-O files in Contents/Resources/DWARF are ignored; several Mach-O files are told apart by UUID and arch")
    func severalFilesInBundle() throws {
        let directory = try TemporaryDirectory(prefix: "dsym-bundle")
        let bundle = try Self.twoFileBundle(in: directory)
        let files = try ObjectFile.debugFiles(inBundle: bundle)
        #expect(files.map { ($0 as NSString).lastPathComponent } == ["App-arm64", "App-x86_64"])
        let arm64 = try ObjectFile(path: SymbolFixtures.path("macho/app-arm64-O2")).slice(arch: nil)
        let x86 = try ObjectFile(path: SymbolFixtures.path("macho/app-x86_64-O2")).slice(arch: nil)
        let byID = try ObjectFile.open(path: bundle, id: x86.id, arch: nil)
        #expect(byID.slices.first?.id == x86.id)
        #expect(try ObjectFile.open(path: bundle, id: arm64.id, arch: "x86_64").slices.first?.id == arm64.id)
        #expect(try ObjectFile.open(path: bundle, id: nil, arch: "arm64").slices.first?.arch == "arm64")
        #expect(throws: SymbolsError.self) { _ = try ObjectFile.open(path: bundle, id: nil, arch: nil) }
        // Opening the bundle as one file still says it has several.
        #expect(throws: SymbolsError.self) { _ = try ObjectFile(path: bundle) }
    }

    @Test("symbolicate --object App finds App.dSYM beside the binary; --dsym overrides; without one, names come from the symbol table")
    func dSYMBesideBinary() throws {
        let directory = try TemporaryDirectory(prefix: "dsym-beside")
        let binary = directory.file("App").path
        try FileManager.default.copyItem(atPath: SymbolFixtures.path("macho/app-arm64-O2"), toPath: binary)
        let vigil = try BuildProducts.executable("vigil")
        let address = "0x100004000"
        let alone = try ChildProcess.run(vigil, ["symbolicate", "--object", binary, address], timeout: 60)
        #expect(alone.exitStatus == 0, "\(alone)")
        #expect(alone.standardOutput == "__cxa_pure_virtual (in App) + 0\n", "\(alone)")
        let bundle = try Self.twoFileBundle(in: directory)
        let beside = try ChildProcess.run(vigil, ["symbolicate", "--object", binary, address], timeout: 60)
        #expect(beside.exitStatus == 0, "\(beside)")
        #expect(beside.standardOutput.hasSuffix("(geometry.cpp:6)\n"), "\(beside)")
        #expect(beside.standardError.contains("using \(bundle)"))
        // --dsym names another bundle; the stray files and the x86_64 file in it do not matter.
        try FileManager.default.moveItem(atPath: bundle, toPath: directory.file("Elsewhere.dSYM").path)
        let chosen = try ChildProcess.run(vigil, ["symbolicate", "--object", binary, "--dsym", directory.file("Elsewhere.dSYM").path,
                                                  address], timeout: 60)
        #expect(chosen.exitStatus == 0, "\(chosen)")
        #expect(chosen.standardOutput.hasSuffix("(geometry.cpp:6)\n"), "\(chosen)")
        // A dSYM of another build (the x86_64 file only) is refused with the reason.
        let other = directory.file("Other.dSYM/Contents/Resources/DWARF").path
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: SymbolFixtures.path("macho/app-x86_64-O2.dSYM/Contents/Resources/DWARF/app-x86_64-O2"),
                                         toPath: other + "/App")
        let wrong = try ChildProcess.run(vigil, ["symbolicate", "--object", binary, "--dsym", directory.file("Other.dSYM").path, address],
                                         timeout: 60)
        #expect(wrong.exitStatus != 0)
        #expect(wrong.standardError.contains("UUID"), "\(wrong)")
    }

    @Test("a stripped shared library with only .dynsym is described as such, not as a separate debug file")
    func dynsymOnlyLibrary() throws {
        let directory = try TemporaryDirectory(prefix: "dynsym")
        let source = directory.file("lib.c").path
        try Data("int area(int w, int h) { return w * h; }\nint perimeter(int w, int h) { return 2 * (w + h); }\n".utf8)
            .write(to: URL(fileURLWithPath: source))
        let library = directory.file("libshapes.so").path
        let clang = FileManager.default.fileExists(atPath: "/opt/swift/usr/bin/clang") ? "/opt/swift/usr/bin/clang" : "/usr/bin/clang"
        let built = try ChildProcess.run(URL(fileURLWithPath: clang), ["-shared", "-fPIC", "-O2", "-nostdlib", "-Wl,-s", "-fuse-ld=lld", source, "-o", library],
                                         timeout: 60)
        try #require(built.exitStatus == 0, "\(built)")
        let slice = try ObjectFile(path: library).slice(arch: nil)
        #expect(slice.hasOnlyDynamicSymbols && !slice.hasDWARF)
        #expect(slice.kind == .library)
        let cache = try SymCache(building: slice)
        #expect(cache.functionCount >= 2)
        let info = try ChildProcess.run(try BuildProducts.executable("vigil"), ["symbols", "info", library], timeout: 60)
        #expect(info.standardOutput.contains("ELF library, stripped (dynamic symbols only)"), "\(info)")
        #expect(!info.standardOutput.contains("separate debug file"))
    }

    @Test("___ZL…_block_invoke names read as atos writes them", arguments: [
        ("___ZL12RunWebThreadPv_block_invoke", "invocation function for block in RunWebThread(void*)"),
        ("__ZN7fixture5Cache5flushEv_block_invoke_2", "invocation function for block in fixture::Cache::flush()"),
        ("_ZL12RunWebThreadPv", "RunWebThread(void*)"),
        ("__ZL5debugv_block_invoke_x", "__ZL5debugv_block_invoke_x"),
    ])
    func blockInvokeNames(mangled: String, expected: String) {
        #expect(Demangler.demangle(mangled) == expected)
    }
}
