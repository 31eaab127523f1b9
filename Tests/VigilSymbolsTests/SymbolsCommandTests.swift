import Foundation
import Testing
@testable import VigilSymbols
import VigilTestSupport

/// `vigil symbolicate`, `vigil symcache`, `vigil symbols info` as real processes.
@Suite("vigil symbolicate, symcache and symbols info")
struct SymbolsCommandTests {
    private func vigil(_ arguments: [String]) throws -> ChildProcess.Outcome {
        try ChildProcess.run(try BuildProducts.executable("vigil"), arguments, timeout: 60)
    }

    /// The frames the library gives for a file address, to compare the CLI's text with.
    private func frames(_ fixture: String, _ address: UInt64, arch: String? = nil) throws -> [SymbolicatedFrame] {
        let slice = try ObjectFile(path: SymbolFixtures.path(fixture)).slice(arch: arch)
        return try SymCache(building: slice).lookup(vmAddress: address)
    }

    @Test("one atos line per address: outermost function, image, innermost file and line")
    func atosLines() throws {
        let fixture = "macho/app-arm64-O2.dSYM"
        let addresses: [UInt64] = [0x1_0000_4100, 0x1_0000_4010, 0x1_0000_0000 - 1]
        let outcome = try vigil(["symbolicate", "--object", SymbolFixtures.path(fixture)] + addresses.map { "0x" + String($0, radix: 16) })
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let first = try frames(fixture, addresses[0])
        #expect(lines[0] == "\(first.last!.function!) (in app-arm64-O2) (\(first[0].fileName!):\(first[0].line))")
        #expect(lines[2] == "0xffffffff (in app-arm64-O2)")
    }

    @Test("--inline prints every frame innermost first, then an empty line")
    func inlineFrames() throws {
        let fixture = "elf/c-dwarf5-O2"
        let slice = try ObjectFile(path: SymbolFixtures.path(fixture)).slice(arch: nil)
        let cache = try SymCache(building: slice)
        let address = try #require(SymbolFixtures.addresses(of: slice).addresses.first { cache.lookup(vmAddress: $0).count >= 3 })
        let expected = cache.lookup(vmAddress: address)
        let outcome = try vigil(["symbolicate", "--object", SymbolFixtures.path(fixture), "--inline", "0x" + String(address, radix: 16)])
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let lines = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == expected.count + 2) // frames, the empty line, the final newline's empty tail
        for (line, frame) in zip(lines, expected) {
            #expect(line == "\(frame.function!) (in c-dwarf5-O2) (\(frame.fileName!):\(frame.line))")
        }
        #expect(lines[expected.count] == "")
    }

    @Test("batch mode answers each address as soon as it is read")
    func streaming() throws {
        let process = Process()
        process.executableURL = try BuildProducts.executable("vigil")
        process.arguments = ["symbolicate", "--object", SymbolFixtures.path("macho/app-arm64-O2.dSYM")]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let reader = LineReader(output.fileHandleForReading)
        input.fileHandleForWriting.write(Data("0x100004100\n".utf8))
        let first = reader.nextLine(timeout: 20)
        #expect(first?.contains("(in app-arm64-O2)") == true, "no answer before more input arrived")
        input.fileHandleForWriting.write(Data("nonsense\n0x100004010\n".utf8))
        #expect(reader.nextLine(timeout: 20)?.hasPrefix("?? (not an address: nonsense)") == true)
        #expect(reader.nextLine(timeout: 20)?.contains("(in app-arm64-O2)") == true)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1) // an unreadable line makes the exit status 1
    }

    @Test("a fat file needs --arch, and the error names the architectures")
    func fatNeedsArch() throws {
        let path = SymbolFixtures.path("macho/app-fat.dSYM")
        let missing = try vigil(["symbolicate", "--object", path, "0x100000f00"])
        #expect(missing.exitStatus == 1)
        #expect(missing.standardError.contains("x86_64, arm64"), "\(missing)")
        let wrong = try vigil(["symbolicate", "--object", path, "--arch", "armv7k", "0x100000f00"])
        #expect(wrong.standardError.contains("no armv7k slice"), "\(wrong)")
        let chosen = try vigil(["symbolicate", "--object", path, "--arch", "arm64", "0x100004100"])
        #expect(chosen.exitStatus == 0)
        #expect(chosen.standardOutput.contains("(in app-fat)"))
    }

    @Test("--load-address maps runtime addresses to the image")
    func loadAddress() throws {
        let path = SymbolFixtures.path("macho/app-arm64-O2.dSYM")
        let byFile = try vigil(["symbolicate", "--object", path, "0x100004100"])
        let byRuntime = try vigil(["symbolicate", "--object", path, "--load-address", "0x104a30000", "0x104a34100"])
        #expect(byRuntime.exitStatus == 0)
        #expect(byRuntime.standardOutput == byFile.standardOutput)
    }

    @Test("symcache build writes a cache that symcache lookup and symbolicate read")
    func buildAndLookup() throws {
        let directory = try TemporaryDirectory(prefix: "cli-symcache")
        let cachePath = directory.file("app.symcache").path
        let built = try vigil(["symcache", "build", SymbolFixtures.path("macho/app-fat.dSYM"), "--arch", "x86_64", "-o", cachePath])
        #expect(built.exitStatus == 0, "\(built)")
        #expect(built.standardOutput.contains("x86_64"))
        let cache = try SymCache(contentsOf: cachePath)
        #expect(cache.arch == "x86_64")
        let relative = try #require((UInt64(0)..<0x10000).first { !cache.lookup(relativeAddress: $0).isEmpty })
        let looked = try vigil(["symcache", "lookup", cachePath, "--inline", String(relative, radix: 16)])
        #expect(looked.exitStatus == 0, "\(looked)")
        let expected = cache.lookup(relativeAddress: relative)
        #expect(looked.standardOutput.split(separator: "\n").count == expected.count)
        let viaSymbolicate = try vigil(["symbolicate", "--object", cachePath, "--inline", "0x" + String(relative + cache.imageVMAddress, radix: 16)])
        #expect(viaSymbolicate.standardOutput == looked.standardOutput)
    }

    @Test("symbols info lists every slice's arch, UUID, kind and DWARF")
    func info() throws {
        let outcome = try vigil(["symbols", "info", SymbolFixtures.path("macho/app-fat.dSYM"), SymbolFixtures.path("elf/c-dwarf5-O2-stripped")])
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let file = try ObjectFile(path: SymbolFixtures.path("macho/app-fat.dSYM"))
        for slice in file.slices { #expect(outcome.standardOutput.contains("\(slice.id!) (UUID)")) }
        #expect(outcome.standardOutput.contains("Mach-O dSYM companion"))
        #expect(outcome.standardOutput.contains("DWARF:      yes"))
        #expect(outcome.standardOutput.contains("debuglink:  c-dwarf5-O2-stripped.debug"))
        let broken = try vigil(["symbols", "info", SymbolFixtures.path("src/main.c")])
        #expect(broken.exitStatus == 1)
        #expect(broken.standardOutput.contains("badMagic"))
    }
}

/// Reads lines from a pipe on a background thread, so a test can wait for one with a timeout.
final class LineReader: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var partial = ""
    private let available = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                lock.lock()
                partial += String(decoding: data, as: UTF8.self)
                while let newline = partial.firstIndex(of: "\n") {
                    lines.append(String(partial[..<newline]))
                    partial = String(partial[partial.index(after: newline)...])
                    available.signal()
                }
                lock.unlock()
            }
        }
    }

    /// The next line, or nil when none arrives within `timeout` seconds.
    func nextLine(timeout: TimeInterval) -> String? {
        guard available.wait(timeout: .now() + timeout) == .success else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return lines.removeFirst()
    }
}
