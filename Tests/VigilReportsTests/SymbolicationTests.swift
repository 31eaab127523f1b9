import Foundation
import Testing
import VigilCore
@testable import VigilSymbols
import VigilTestSupport
@testable import VigilReports

/// Reports generated from the symbol fixtures' binaries (`Tests/Fixtures`), in all three Apple
/// formats, with addresses computed from a load address with a slide, symbolicate to the
/// functions, files, lines and inline chains `llvm-symbolizer --inlining` gives.
@Suite("Symbolication against llvm-symbolizer")
struct SymbolicationTests {
    /// One fixture binary: its dSYM, image name, and the load slide used for the report.
    struct Binary: Sendable, CustomTestStringConvertible {
        var dSYM: String
        var name: String
        var slide: UInt64
        var path: String
        var testDescription: String { name }
    }

    static let binaries = [
        Binary(dSYM: "macho/app-arm64-O2.dSYM", name: "app-arm64-O2", slide: 0x4a3_8000,
               path: "/private/var/containers/Bundle/Application/5B1C0D9E-8F7A-4B6C-9D0E-1F2A3B4C5D6E/Fixture.app/app-arm64-O2"),
        Binary(dSYM: "macho/libshapes-arm64.dylib.dSYM", name: "libshapes-arm64.dylib", slide: 0x1_0512_c000,
               path: "/private/var/containers/Bundle/Application/5B1C0D9E-8F7A-4B6C-9D0E-1F2A3B4C5D6E/Fixture.app/Frameworks/libshapes-arm64.dylib"),
        Binary(dSYM: "macho/app-x86_64-O2.dSYM", name: "app-x86_64-O2", slide: 0x3e_1000,
               path: "/Users/someone/Applications/Fixture.app/Contents/MacOS/app-x86_64-O2"),
    ]

    static var fixtures: URL { BuildProducts.packageRoot.appendingPathComponent("Tests/Fixtures") }

    static var symbolizer: URL? {
        ["/opt/swift/usr/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer-15", "/usr/bin/llvm-symbolizer"]
            .first(where: FileManager.default.isExecutableFile(atPath:)).map(URL.init(fileURLWithPath:))
    }

    /// The image as a crash report sees it, and the addresses its frames will hold.
    struct Setup {
        var uuid: String
        var arch: String
        var vmaddr: UInt64
        var loadAddress: UInt64
        var size: UInt64
        var debugFile: String
        /// Threads of file addresses, innermost first (every 8 sampled instruction addresses).
        var threads: [[UInt64]]
    }

    static func setup(_ binary: Binary) throws -> Setup {
        let file = try ObjectFile(path: fixtures.appendingPathComponent(binary.dSYM).path)
        let slice = try file.slice(arch: nil)
        let uuid = try #require(slice.id?.description)
        var addresses: [UInt64] = []
        let step: UInt64 = slice.arch.hasPrefix("arm64") ? 4 : 1
        for section in slice.parsed.sections where section.isCode && section.size > 0 {
            var address = section.address
            while address < section.address + section.size {
                addresses.append(address)
                address += step
            }
        }
        var generator = SeededGenerator(seed: 0x7e7)
        addresses.shuffle(using: &generator)
        addresses = Array(addresses.prefix(160))
        let threads = stride(from: 0, to: addresses.count, by: 8).map { Array(addresses[$0..<min($0 + 8, addresses.count)]) }
        return Setup(uuid: uuid, arch: slice.arch, vmaddr: slice.imageVMAddress, loadAddress: slice.imageVMAddress &+ binary.slide,
                     size: max(slice.imageSize, 0x10_0000), debugFile: file.path ?? binary.dSYM, threads: threads)
    }

    // MARK: Reports in the three formats, written here from the formats' documentation

    static func ipsReport(_ binary: Binary, _ setup: Setup) -> String {
        let header = #"{"app_name":"Fixture","timestamp":"2026-10-08 12:00:00.00 +0000","app_version":"1.0","build_version":"1","bug_type":"309","os_version":"iPhone OS 17.6.1 (21G93)","name":"Fixture","incident_id":"0A1B2C3D-4E5F-4061-8273-9A8B7C6D5E4F"}"#
        var threads: [String] = []
        for (index, thread) in setup.threads.enumerated() {
            let frames = thread.map { #"{"imageOffset":\#($0 - setup.vmaddr),"imageIndex":0}"# }.joined(separator: ",")
            threads.append(#"{"id":\#(5000 + index),\#(index == 0 ? #""triggered":true,"queue":"com.apple.main-thread","# : "")"frames":[\#(frames)]}"#)
        }
        let path = binary.path.replacingOccurrences(of: "/", with: "\\/")
        return header + "\n{\n" + """
              "procName" : "Fixture",
              "cpuType" : "\(setup.arch.hasPrefix("arm") ? "ARM-64" : "X86-64")",
              "exception" : {"codes":"0x0000000000000001, 0x0000000000000000","rawCodes":[1,0],"type":"EXC_BAD_ACCESS","signal":"SIGSEGV","subtype":"KERN_INVALID_ADDRESS at 0x0000000000000000"},
              "faultingThread" : 0,
              "threads" : [\(threads.joined(separator: ","))],
              "usedImages" : [
              {
                "source" : "P",
                "arch" : "\(setup.arch)",
                "base" : \(setup.loadAddress),
                "size" : \(setup.size),
                "uuid" : "\(setup.uuid.lowercased())",
                "path" : "\(path)",
                "name" : "\(binary.name)"
              }
            ]
            }

            """
    }

    static func textReport(_ binary: Binary, _ setup: Setup) -> String {
        var lines = ["Incident Identifier: 0A1B2C3D-4E5F-4061-8273-9A8B7C6D5E4F", "Process:             Fixture [42]",
                     "Code Type:           \(setup.arch.hasPrefix("arm") ? "ARM-64" : "X86-64") (Native)", "",
                     "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)", "Exception Subtype: KERN_INVALID_ADDRESS at 0x0000000000000000",
                     "Triggered by Thread:  0", ""]
        for (index, thread) in setup.threads.enumerated() {
            lines.append(index == 0 ? "Thread 0 Crashed:" : "Thread \(index):")
            for (number, address) in thread.enumerated() {
                let runtime = address - setup.vmaddr + setup.loadAddress
                let name = binary.name.padding(toLength: 30, withPad: " ", startingAt: 0)
                lines.append(String(format: "%-4d%@\t0x%016llx 0x%llx + %llu", number, name, runtime, setup.loadAddress, address - setup.vmaddr))
            }
            lines.append("")
        }
        lines.append("Binary Images:")
        lines.append(String(format: "0x%llx - 0x%llx %@ %@  <%@> %@", setup.loadAddress, setup.loadAddress + setup.size - 1, binary.name,
                            setup.arch, ImageUUID.compact(setup.uuid), binary.path))
        return lines.joined(separator: "\n") + "\n"
    }

    static func metricKitReport(_ binary: Binary, _ setup: Setup) -> String {
        // Crash diagnostics carry the load address in offsetIntoBinaryTextSegment.
        func node(_ frames: ArraySlice<UInt64>) -> String {
            guard let first = frames.first else { return "" }
            let rest = frames.dropFirst()
            let children = rest.isEmpty ? "" : #","subFrames":[\#(node(rest))]"#
            return #"{"binaryUUID":"\#(setup.uuid)","offsetIntoBinaryTextSegment":\#(setup.loadAddress),"sampleCount":1,"binaryName":"\#(binary.name)","address":\#(first - setup.vmaddr + setup.loadAddress)\#(children)}"#
        }
        let stacks = setup.threads.enumerated().map { index, thread in
            #"{"threadAttributed":\#(index == 0),"callStackRootFrames":[\#(node(thread[...]))]}"#
        }
        return #"{"timeStampBegin":"2026-10-08 00:00:00","timeStampEnd":"2026-10-08 23:59:00","crashDiagnostics":[{"version":"1.0.0","callStackTree":{"callStackPerThread":true,"callStacks":[\#(stacks.joined(separator: ","))]},"diagnosticMetaData":{"appVersion":"1.0","appBuildVersion":"1","osVersion":"iPhone OS 17.6.1 (21G93)","platformArchitecture":"\#(setup.arch)","exceptionType":1,"signal":11,"exceptionCode":1}}]}"#
    }

    /// llvm-symbolizer's frames (function, file name, line), innermost first, for each file
    /// address, looking up caller frames inside their call instruction; the outermost frame
    /// also carries the offset of the frame's address from the function's start.
    static func reference(_ setup: Setup, symbolizer: URL) throws -> [[String]] {
        let adjustment: UInt64 = setup.arch.hasPrefix("arm") ? 4 : 1
        let frames = setup.threads.flatMap { thread in thread.enumerated().map { (address: $1, lookup: $0 == 0 ? $1 : $1 - adjustment) } }
        let process = Process()
        process.executableURL = symbolizer
        process.arguments = ["--inlining", "--output-style=JSON", "--obj=\(setup.debugFile)"]
            + frames.map { "0x" + String($0.lookup, radix: 16) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let answers = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        var result: [[String]] = []
        for (frame, answer) in zip(frames, answers) {
            let symbols = (answer["Symbol"] as? [[String: Any]] ?? []).filter { ($0["FunctionName"] as? String ?? "").isEmpty == false }
            var chain = symbols.map { symbol in
                let file = ((symbol["FileName"] as? String ?? "") as NSString).lastPathComponent
                return "\(symbol["FunctionName"] as? String ?? "") \(file):\(symbol["Line"] as? Int ?? 0)"
            }
            if let last = symbols.last, let start = (last["StartAddress"] as? String).flatMap({ UInt64($0.dropFirst(2), radix: 16) }),
               frame.address >= start {
                chain[chain.count - 1] += " +\(frame.address - start)"
            }
            result.append(chain)
        }
        return result
    }

    /// Our frames in the same shape: each outer frame with the inlined frames before it.
    static func chains(_ frames: [StackFrame]) -> [[String]] {
        var result: [[String]] = []
        var pending: [String] = []
        for frame in frames {
            let text = frame.symbol.map { "\($0) \(frame.sourceFile ?? ""):\(frame.sourceLine ?? 0)" }
            if frame.isInlined {
                if let text { pending.append(text) }
                continue
            }
            result.append(pending + (text.map { [$0 + (frame.symbolOffset.map { " +\($0)" } ?? "")] } ?? []))
            pending = []
        }
        return result
    }

    @Test("reports in .ips, text and MetricKit form symbolicate to llvm-symbolizer's functions, lines and inline chains",
          arguments: binaries)
    func matchesLLVMSymbolizer(_ binary: Binary) throws {
        let symbolizer = try #require(Self.symbolizer, "llvm-symbolizer is missing: run scripts/bootstrap")
        let setup = try Self.setup(binary)
        let expected = try Self.reference(setup, symbolizer: symbolizer)
        #expect(expected.count == setup.threads.reduce(0) { $0 + $1.count })
        #expect(expected.filter { $0.count > 1 }.count > 0 || binary.name.contains("x86"), "no inlined frames sampled for \(binary.name)")
        let lookup = DebugFileLookup(paths: [Self.fixtures.appendingPathComponent(binary.dSYM).path])
        #expect(lookup.issues.isEmpty, "\(lookup.issues)")
        #expect(lookup.identifiers == [setup.uuid])

        for (format, text) in [(ReportFormat.ips, Self.ipsReport(binary, setup)), (.appleText, Self.textReport(binary, setup)),
                               (.metricKit, Self.metricKitReport(binary, setup))] {
            let report = try #require(try ReportReader.read(Data(text.utf8)).first)
            #expect(report.format == format)
            #expect(!report.isPartial, "\(format): \(report.problems)")
            #expect(report.threads.count == setup.threads.count)
            let image = try #require(report.images.first)
            #expect(image.base == setup.loadAddress, "\(format)")
            #expect(image.uuid == setup.uuid, "\(format)")
            let result = ReportSymbolicator(lookup: lookup).symbolicate(report)
            let actual = result.report.threads.flatMap { Self.chains($0.frames) }
            #expect(actual.count == expected.count, "\(format)")
            var mismatches: [String] = []
            for (index, (ours, theirs)) in zip(actual, expected).enumerated() where ours != theirs {
                mismatches.append("frame \(index): expected \(theirs), got \(ours)")
            }
            #expect(mismatches.isEmpty, "\(binary.name) as \(format): \(mismatches.count) mismatches\n\(mismatches.prefix(8).joined(separator: "\n"))")
            #expect(result.summary.framesTotal == expected.count)
            #expect(result.summary.framesSymbolicated == expected.filter { !$0.isEmpty }.count)
            #expect(result.summary.missingImages.isEmpty)

            // Written back in its own format, the symbols read again.
            let written = try ReportWriter.write(result.report, as: format)
            let again = try #require(try ReportReader.read(Data(written.utf8)).first)
            #expect(again.threads.flatMap { Self.chains($0.frames) } == actual, "\(binary.name) written back as \(format)")
        }
    }

    @Test("symbolicated .ips frames gain Apple's members; text frames become `function + offset (File.c:12)` lines")
    func outputShapes() throws {
        let binary = Self.binaries[0]
        let setup = try Self.setup(binary)
        let lookup = DebugFileLookup(paths: [Self.fixtures.appendingPathComponent(binary.dSYM).path])
        let ips = ReportSymbolicator(lookup: lookup).symbolicate(try IPSReader.read(Data(Self.ipsReport(binary, setup).utf8))).report
        let written = IPSWriter.write(ips)
        for member in ["\"symbol\":", "\"symbolLocation\":", "\"sourceFile\":", "\"sourceLine\":", "\"inline\":true"] {
            #expect(written.contains(member), "\(member)")
        }
        let text = ReportSymbolicator(lookup: lookup).symbolicate(try AppleTextReader.read(Data(Self.textReport(binary, setup).utf8))).report
        let lines = AppleTextWriter.write(text).components(separatedBy: "\n")
        let frame = try #require(lines.first { $0.hasPrefix("0   ") })
        // `0   app-arm64-O2   0x… function + offset (file.c:12)`
        let parsed = try #require(TextFrameLine.parse(Substring(frame)))
        #expect(parsed.symbol != nil)
        #expect(parsed.offset != nil)
        #expect(parsed.file?.hasSuffix(".c") == true || parsed.file?.hasSuffix(".cpp") == true || parsed.file?.hasSuffix(".h") == true)
        #expect(lines.contains { $0.hasSuffix("[inlined]") })
        // Lines that were not frames are untouched.
        #expect(lines.contains("Exception Subtype: KERN_INVALID_ADDRESS at 0x0000000000000000"))
    }

    @Test("images without a matching file are listed with name and arch, app images apart from system ones")
    func missingImages() throws {
        let binary = Self.binaries[0]
        let setup = try Self.setup(binary)
        var report = try IPSReader.read(Data(Self.ipsReport(binary, setup).utf8))
        report.images.append(BinaryImage(name: "libsystem_kernel.dylib", uuid: "9B8C2A51-6E2F-3C8A-B1D4-7F0E3A2C5D61", arch: "arm64e",
                                         base: 0x1_e9a1_0000, size: 0x3_b000, path: "/usr/lib/system/libsystem_kernel.dylib"))
        report.threads[1].frames.insert(StackFrame(imageIndex: 1, imageOffset: 5916), at: 0)
        report.images.append(BinaryImage(name: "Unused", uuid: "11111111-2222-3333-4444-555555555555", base: 0x2_0000_0000, size: 0x1000))
        let withDSYM = ReportSymbolicator(lookup: DebugFileLookup(paths: [Self.fixtures.appendingPathComponent(binary.dSYM).path]))
            .symbolicate(report).summary
        #expect(withDSYM.missingAppImages.isEmpty)
        #expect(withDSYM.missingSystemImages.map(\.name) == ["libsystem_kernel.dylib"])
        #expect(withDSYM.missingSystemImages.first?.arch == "arm64e")
        #expect(withDSYM.missingSystemImages.first?.frames == 1)
        let without = ReportSymbolicator(lookup: DebugFileLookup(paths: [])).symbolicate(report).summary
        #expect(without.missingAppImages.map(\.name) == [binary.name])
        #expect(without.missingAppImages.first?.uuid == setup.uuid)
        #expect(without.framesSymbolicated == 0)
        // A wrong file (another UUID) matches nothing and is not an error.
        let other = DebugFileLookup(paths: [Self.fixtures.appendingPathComponent("macho/libshapes-arm64.dylib.dSYM").path])
        #expect(ReportSymbolicator(lookup: other).symbolicate(report).summary.missingAppImages.count == 1)
        #expect(DebugFileLookup(paths: ["/nonexistent/app.dSYM"]).issues.count == 1)
    }
}
