import Foundation
import Testing
@testable import VigilSymbols
import VigilTestSupport

/// This engine against `llvm-symbolizer --inlining` on every fixture: the same function names,
/// files, lines and inline chains for every instruction address.
@Suite("Differential: SymCache lookups vs llvm-symbolizer")
struct DifferentialTests {
    /// One frame as both sides print it: llvm's "no information" is empty strings and line 0.
    struct Frame: Equatable, CustomStringConvertible {
        var function: String
        var file: String
        var line: UInt32
        var description: String { "\(function.isEmpty ? "??" : function) \(file.isEmpty ? "??" : file):\(line)" }
    }

    @Test("every instruction address gives llvm-symbolizer's frames", arguments: SymbolFixtures.differentialCases)
    func matchesLLVMSymbolizer(_ fixture: SymbolFixtures.Case) throws {
        let symbolizer = try #require(SymbolFixtures.symbolizer, "llvm-symbolizer is missing: run scripts/bootstrap")
        let temporary = try TemporaryDirectory(prefix: "differential")
        var objectPath = SymbolFixtures.path(fixture.object)
        if fixture.isolate {
            let copy = temporary.file((objectPath as NSString).lastPathComponent).path
            try FileManager.default.copyItem(atPath: objectPath, toPath: copy)
            objectPath = copy
        }
        let file = try ObjectFile(path: objectPath)
        let slice = try file.slice(arch: fixture.arch)
        let output = try SymCacheWriter().write(slice)
        #expect(output.warnings.isEmpty, "warnings: \(output.warnings)")
        let cache = try SymCache(data: output.data)
        let (addresses, total) = SymbolFixtures.addresses(of: slice)
        #expect(addresses.count > 50, "too few addresses in \(fixture)")

        let reference = try referenceFrames(symbolizer: symbolizer, object: file.path ?? objectPath, arch: fixture.arch,
                                            addresses: addresses, scratch: temporary)
        #expect(reference.count == addresses.count, "llvm-symbolizer answered \(reference.count) of \(addresses.count) addresses")

        var mismatches: [String] = []
        var inlinedAddresses = 0
        var symbolicated = 0
        for (address, expected) in zip(addresses, reference) {
            let frames = cache.lookup(vmAddress: address).map {
                Frame(function: $0.rawFunction ?? "", file: $0.file ?? "", line: $0.line)
            }
            let normalizedExpected = expected == [Frame(function: "", file: "", line: 0)] ? [] : expected
            if frames.count > 1 { inlinedAddresses += 1 }
            if !frames.isEmpty { symbolicated += 1 }
            if frames != normalizedExpected {
                mismatches.append("0x\(String(address, radix: 16)): expected \(normalizedExpected), got \(frames)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(addresses.count) addresses differ in \(fixture):\n\(mismatches.prefix(15).joined(separator: "\n"))")
        // Coverage, for the report: how much was compared and how much of it had inline frames.
        print("differential \(fixture): \(addresses.count) addresses compared (of \(total) instruction addresses), "
              + "\(symbolicated) symbolicated, \(inlinedAddresses) with inline frames, \(mismatches.count) mismatches")
    }

    /// llvm-symbolizer's frames for each address, in order (JSON output, one line per address).
    private func referenceFrames(symbolizer: URL, object: String, arch: String?, addresses: [UInt64],
                                 scratch: TemporaryDirectory) throws -> [[Frame]] {
        let input = scratch.file("addresses.txt")
        try addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n").appending("\n")
            .write(to: input, atomically: true, encoding: .utf8)
        var arguments = ["--inlining", "--output-style=JSON", "--no-demangle", "--obj=\(object)"]
        if let arch { arguments.append("--default-arch=\(arch)") }
        let process = Process()
        process.executableURL = symbolizer
        process.arguments = arguments
        process.standardInput = try FileHandle(forReadingFrom: input)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var result: [[Frame]] = []
        for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let symbols = object["Symbol"] as? [[String: Any]] ?? []
            result.append(symbols.map {
                Frame(function: $0["FunctionName"] as? String ?? "", file: $0["FileName"] as? String ?? "",
                      line: UInt32(($0["Line"] as? Int) ?? 0))
            })
        }
        return result
    }
}
