import Foundation
import VigilCommandLine
import VigilCore
import VigilReports
import VigilSymbols

/// `vigil-bench reports`: symbolicating a 60-thread, 2,000-frame crash report with its dSYM,
/// against `llvm-symbolizer --inlining` on the same addresses, in the same run.
///
/// The report is an `.ips` built from the arm64 fixture executable's code addresses (a fixed
/// seed, a load slide); Vigil's side reads it, builds the SymCache from the dSYM, symbolicates
/// and writes the `.ips` back — what `vigil report symbolicate` does — and its lookups alone
/// are timed too. llvm-symbolizer gets the same 2,000 file addresses (caller frames moved
/// into their call instruction, as Vigil does) in one process through standard input. Each
/// side runs `--runs` times; medians and the ratio go to `bench-results/reports.json`, with
/// how many frames both sides named identically.
enum ReportsBenchmark: Command {
    static let name = "reports"
    static let summary = "symbolicate a 60-thread, 2,000-frame report: Vigil vs llvm-symbolizer"
    static let usage = """
        usage: vigil-bench reports [--dsym PATH] [--runs N] [--threads N] [--frames N] [--output FILE]

          --dsym PATH     dSYM of an arm64 image (default Tests/Fixtures/macho/app-arm64-O2.dSYM)
          --runs N        timed runs per side (default 7); the median is reported
          --threads N     threads in the report (default 60)
          --frames N      frames in the report (default 2000)
          --output FILE   where to write the JSON (default bench-results/reports.json)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, valued: ["dsym", "runs", "threads", "frames", "output"])
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: ["dsym", "runs", "threads", "frames", "output"])
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let dSYM = arguments.value("dsym") ?? "Tests/Fixtures/macho/app-arm64-O2.dSYM"
        let runs = max(1, try arguments.number("runs", default: 7))
        let threadCount = max(1, try arguments.number("threads", default: 60))
        let frameCount = max(threadCount, try arguments.number("frames", default: 2000))
        let output = arguments.value("output") ?? "bench-results/reports.json"

        let file = try ObjectFile(path: dSYM)
        let slice = try file.slice(arch: nil)
        guard let uuid = slice.id?.description else { throw BenchmarkError("\(dSYM) has no UUID") }
        let debugFile = file.path ?? dSYM
        let addresses = try codeAddresses(of: slice, count: frameCount)
        let loadAddress = slice.imageVMAddress + 0x4a3_8000
        var threads: [[UInt64]] = Array(repeating: [], count: threadCount)
        for (index, address) in addresses.enumerated() { threads[index * threadCount / addresses.count].append(address) }
        let report = ipsReport(threads: threads, uuid: uuid, arch: slice.arch, vmaddr: slice.imageVMAddress, loadAddress: loadAddress)
        let adjustment: UInt64 = slice.arch.hasPrefix("arm") ? 4 : 1
        let lookups = threads.flatMap { thread in thread.enumerated().map { $0 == 0 ? $1 : $1 - adjustment } }

        // Vigil, end to end: read, build the SymCache from the dSYM, symbolicate, write.
        var endToEnd: [Double] = []
        var lookupOnly: [Double] = []
        var symbolicated = CrashReport(format: .ips)
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            let parsed = try IPSReader.read(Data(report.utf8))
            let lookup = DebugFileLookup(paths: [dSYM], wanted: Set(parsed.images.compactMap(\.uuid)))
            let built = DispatchTime.now().uptimeNanoseconds
            symbolicated = ReportSymbolicator(lookup: lookup).symbolicate(parsed).report
            let symbolicatedAt = DispatchTime.now().uptimeNanoseconds
            _ = IPSWriter.write(symbolicated)
            let end = DispatchTime.now().uptimeNanoseconds
            endToEnd.append(Double(end - start) / 1e6)
            lookupOnly.append(Double(symbolicatedAt - built) / 1e6)
        }

        // llvm-symbolizer on the same addresses, one process per run.
        let symbolizer = try findSymbolizer()
        var llvm: [Double] = []
        var reference: [[String]] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            let data = try runSymbolizer(symbolizer, object: debugFile, addresses: lookups)
            llvm.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            reference = try parse(data)
        }

        // Agreement: the same function, file name and line chain for every frame.
        let ours = symbolicated.threads.flatMap { chains($0.frames) }
        let agreeing = zip(ours, reference).filter { $0 == $1 }.count
        let vigilMedian = median(endToEnd)
        let llvmMedian = median(llvm)
        let result: [String: Any] = [
            "suite": "reports",
            "description": "symbolicate a \(threadCount)-thread, \(addresses.count)-frame .ips report with its dSYM",
            "dsym": dSYM, "arch": slice.arch, "threads": threadCount, "frames": addresses.count, "runs": runs,
            "vigil": ["medianMs": round3(vigilMedian), "lookupsMedianMs": round3(median(lookupOnly)),
                      "what": "read .ips + build SymCache from the dSYM + symbolicate + write .ips"],
            "llvmSymbolizer": ["medianMs": round3(llvmMedian), "path": symbolizer.path,
                               "what": "llvm-symbolizer --inlining --output-style=JSON, same addresses, one process"],
            "ratio": round3(llvmMedian / max(vigilMedian, 0.001)),
            "ratioMeaning": "llvm-symbolizer time / Vigil time (above 1: Vigil is faster)",
            "goal": "Vigil end to end at least as fast as llvm-symbolizer on the same addresses, with the same answers",
            "framesAgreeing": agreeing, "framesCompared": min(ours.count, reference.count),
        ]
        let json = try JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: output).deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try json.write(to: URL(fileURLWithPath: output))
        print(String(decoding: json, as: UTF8.self))
        return agreeing == min(ours.count, reference.count) ? 0 : 1
    }

    /// `count` addresses of the image that have symbols (instruction-aligned, fixed seed).
    static func codeAddresses(of slice: ObjectSlice, count: Int) throws -> [UInt64] {
        let cache = try SymCache(building: slice)
        let step: UInt64 = slice.arch.hasPrefix("arm64") ? 4 : 1
        let span = max(slice.imageSize / step, 1)
        var generator = SeededGenerator(seed: 0x2000)
        var result: [UInt64] = []
        var attempts = 0
        while result.count < count, attempts < count * 1000 {
            attempts += 1
            let address = slice.imageVMAddress + (generator.next() % span) * step
            if !cache.lookup(vmAddress: address).isEmpty { result.append(address) }
        }
        guard result.count == count else { throw BenchmarkError("found only \(result.count) symbolicated addresses in the image") }
        return result
    }

    static func ipsReport(threads: [[UInt64]], uuid: String, arch: String, vmaddr: UInt64, loadAddress: UInt64) -> String {
        var body: [String] = []
        for (index, thread) in threads.enumerated() {
            let frames = thread.map { #"{"imageOffset":\#($0 - vmaddr),"imageIndex":0}"# }.joined(separator: ",")
            body.append(#"{"id":\#(1000 + index),\#(index == 0 ? #""triggered":true,"# : "")"frames":[\#(frames)]}"#)
        }
        return #"{"app_name":"Bench","bug_type":"309","os_version":"iPhone OS 17.6.1 (21G93)","name":"Bench"}"# + "\n{\n"
            + #"  "procName" : "Bench","# + "\n"
            + #"  "exception" : {"type":"EXC_BAD_ACCESS","signal":"SIGSEGV","codes":"0x0000000000000001, 0x0000000000000000"},"# + "\n"
            + #"  "faultingThread" : 0,"# + "\n"
            + #"  "threads" : [\#(body.joined(separator: ","))],"# + "\n"
            + #"  "usedImages" : [{"source":"P","arch":"\#(arch)","base":\#(loadAddress),"size":1048576,"uuid":"\#(uuid.lowercased())","name":"Bench"}]"#
            + "\n}\n"
    }

    static func findSymbolizer() throws -> URL {
        for candidate in ["/opt/swift/usr/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer-15", "/usr/bin/llvm-symbolizer"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return URL(fileURLWithPath: candidate)
        }
        throw BenchmarkError("llvm-symbolizer not found: run scripts/bootstrap")
    }

    static func runSymbolizer(_ symbolizer: URL, object: String, addresses: [UInt64]) throws -> Data {
        let process = Process()
        process.executableURL = symbolizer
        process.arguments = ["--inlining", "--output-style=JSON", "--obj=\(object)"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n") + "\n"
        let writer = Thread {
            input.fileHandleForWriting.write(Data(text.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// llvm-symbolizer's JSON lines as `function file:line` chains, innermost first.
    static func parse(_ data: Data) throws -> [[String]] {
        try data.split(separator: UInt8(ascii: "\n")).filter { !$0.isEmpty }.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] ?? [:]
            let symbols = (object["Symbol"] as? [[String: Any]] ?? []).filter { ($0["FunctionName"] as? String ?? "").isEmpty == false }
            return symbols.map { symbol in
                "\(symbol["FunctionName"] as? String ?? "") \(((symbol["FileName"] as? String ?? "") as NSString).lastPathComponent):\(symbol["Line"] as? Int ?? 0)"
            }
        }
    }

    static func chains(_ frames: [StackFrame]) -> [[String]] {
        var result: [[String]] = []
        var pending: [String] = []
        for frame in frames {
            let text = frame.symbol.map { "\($0) \(frame.sourceFile ?? ""):\(frame.sourceLine ?? 0)" }
            if frame.isInlined {
                if let text { pending.append(text) }
                continue
            }
            result.append(pending + (text.map { [$0] } ?? []))
            pending = []
        }
        return result
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}

/// A benchmark that cannot run (a missing tool or input).
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
