import Foundation
import VigilCommandLine
import VigilCore
import VigilSymbols

/// `vigil-bench symbols`: the symbolication engine against Sentry's `symbolic` and
/// `llvm-symbolizer`, side by side in one run on the same object and the same addresses.
///
/// Builds a generated C program (thousands of functions with inlining) for arm64 iOS with a
/// dSYM, then measures (a) SymCache build time, vs `symbolic`'s `make_symcache`; (b) the cost
/// per address of batch symbolication with inline frames, one-time loading excluded (time for
/// the N addresses read ten times over minus time for them once, over 9N), `vigil symbolicate --inline` vs `llvm-symbolizer --inlining`
/// (both reading stdin) and vs `symbolic`'s SymCache lookups; (c) SymCache size vs symbolic's.
/// Writes `bench-results/symbols.json` with both sides, the ratios and the goals.
enum SymbolsBenchmark: Command {
    static let name = "symbols"
    static let summary = "SymCache build time and size, batch symbolication cost vs symbolic and llvm-symbolizer"
    static let usage = """
        usage: vigil-bench symbols --vigil PATH --python PATH [--work DIR] [--out FILE]
                                   [--files N] [--functions M] [--addresses N] [--repeat R]

          --vigil PATH       the vigil executable (release build)
          --python PATH      a Python with `symbolic` installed (Benchmarks/symbols.sh makes one)
          --work DIR         where the generated program and inputs go (default .build/bench-symbols)
          --out FILE         the JSON result (default bench-results/symbols.json)
          --files, --functions   program size: files × functions per file (default 48 × 125)
          --addresses N      distinct addresses; the long run reads them ten times (default 100000)
          --repeat R         runs per measurement, the fastest kept (default 5)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["vigil", "python", "work", "out", "files", "functions", "addresses", "repeat", "llvm-symbolizer"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let vigil = try arguments.required("vigil")
        let python = try arguments.required("python")
        let work = URL(fileURLWithPath: arguments.value("work") ?? ".build/bench-symbols")
        let out = URL(fileURLWithPath: arguments.value("out") ?? "bench-results/symbols.json")
        let files: Int = try arguments.number("files", default: 48)
        let functions: Int = try arguments.number("functions", default: 125)
        let n: Int = try arguments.number("addresses", default: 100_000)
        let repeats: Int = try arguments.number("repeat", default: 5)
        let symbolizer = arguments.value("llvm-symbolizer")
            ?? ["/opt/swift/usr/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer-15"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "llvm-symbolizer"
        // The long run reads the same N addresses ten times over: its difference from the short
        // run is then 9N lookups, large enough (a second or more for llvm-symbolizer, a tenth of
        // one for vigil) to stand far above the noise of one-time loading.
        let tenN = 10 * n

        // 1. The program and its dSYM.
        let program = try buildProgram(work: work, files: files, functions: functions)
        let dwarfFile = program.appendingPathExtension("dSYM").appendingPathComponent("Contents/Resources/DWARF/bench").path
        let dsymBytes = (try FileManager.default.attributesOfItem(atPath: dwarfFile)[.size] as? NSNumber)?.intValue ?? 0
        log("program: \(files * functions) functions, dSYM DWARF file \(dsymBytes) bytes")

        // 2. The addresses: N random instruction addresses of __text for the short run, the same
        // N ten times over for the long run.
        let slice = try ObjectFile(path: dwarfFile).slice(arch: "arm64")
        let text = try textSection(of: program.path)
        var generator = SeededGenerator(seed: 42)
        var distinct: [UInt64] = []
        for _ in 0..<n { distinct.append(text.address + (generator.next() % (text.size / 4)) * 4) }
        let addresses = Array((0..<10).map { _ in distinct }.joined())
        let shortFile = work.appendingPathComponent("addresses-n.txt")
        let longFile = work.appendingPathComponent("addresses-10n.txt")
        try addressText(distinct[...]).write(to: shortFile, atomically: true, encoding: .utf8)
        try addressText(addresses[...]).write(to: longFile, atomically: true, encoding: .utf8)
        let relativeFile = work.appendingPathComponent("addresses-relative.txt")
        try addresses.map { String($0 - slice.imageVMAddress) }.joined(separator: "\n").write(to: relativeFile, atomically: true, encoding: .utf8)

        // 3. (a) + (c): our SymCache, in process.
        var ourBuild = Double.infinity
        var ourCache = Data()
        for _ in 0..<repeats {
            let started = DispatchTime.now()
            let file = try ObjectFile(path: dwarfFile)
            let output = try SymCacheWriter().write(try file.slice(arch: "arm64"))
            ourBuild = min(ourBuild, seconds(since: started))
            ourCache = output.data
        }
        let cachePath = work.appendingPathComponent("bench.symcache")
        try ourCache.write(to: cachePath)
        log(String(format: "vigil SymCache: %.3f s, %d bytes", ourBuild, ourCache.count))

        // symbolic: build, size and lookups in one Python process.
        let script = work.appendingPathComponent("symbolic_bench.py")
        try symbolicScript.write(to: script, atomically: true, encoding: .utf8)
        let symbolicOutput = try runCapturing(python, [script.path, dwarfFile, relativeFile.path, String(n), String(repeats)])
        guard let symbolic = try JSONSerialization.jsonObject(with: Data(symbolicOutput.utf8)) as? [String: Any],
              let symbolicBuild = symbolic["build_seconds"] as? Double, let symbolicSize = symbolic["size_bytes"] as? Int,
              let symbolicShort = symbolic["lookup_seconds_n"] as? Double, let symbolicLong = symbolic["lookup_seconds_10n"] as? Double,
              let symbolicFrames = symbolic["frames_10n"] as? Int else {
            throw SymbolsBenchmarkError("symbolic script printed no result: \(symbolicOutput)")
        }
        log(String(format: "symbolic SymCache: %.3f s, %d bytes", symbolicBuild, symbolicSize))

        // (b): batch symbolication through stdin, N then 10N, fastest of `repeats`.
        let vigilArguments = ["symbolicate", "--object", dwarfFile, "--arch", "arm64", "--inline"]
        let llvmArguments = ["--inlining", "--obj=\(dwarfFile)"]
        let scratch = work.appendingPathComponent("output.txt")
        // vigil's runs are short, so they are repeated twice as often.
        let vigilShort = try timeBest(vigil, vigilArguments, input: shortFile, output: scratch, repeats: 2 * repeats)
        let vigilLong = try timeBest(vigil, vigilArguments, input: longFile, output: scratch, repeats: 2 * repeats)
        // The same with the SymCache built beforehand (`--object bench.symcache`): no build in
        // either run, so the difference is measured with far less noise. Reported alongside.
        let cachedArguments = ["symbolicate", "--object", cachePath.path, "--inline"]
        let cachedShort = try timeBest(vigil, cachedArguments, input: shortFile, output: scratch, repeats: 2 * repeats)
        let cachedLong = try timeBest(vigil, cachedArguments, input: longFile, output: scratch, repeats: 2 * repeats)
        let llvmShort = try timeBest(symbolizer, llvmArguments, input: shortFile, output: scratch, repeats: repeats)
        let llvmLong = try timeBest(symbolizer, llvmArguments, input: longFile, output: scratch, repeats: repeats)
        let perAddress = { (short: Double, long: Double) in max(long - short, 1e-9) / Double(tenN - n) }
        // CPU time (user + system of the child) is the primary measure: on a shared machine it
        // holds much less of the other processes' load than wall time. Both are reported.
        let vigilPer = perAddress(vigilShort.cpu, vigilLong.cpu)
        let llvmPer = perAddress(llvmShort.cpu, llvmLong.cpu)
        let symbolicPer = perAddress(symbolicShort, symbolicLong)
        let vigilWallPer = perAddress(vigilShort.wall, vigilLong.wall)
        let cachedPer = perAddress(cachedShort.cpu, cachedLong.cpu)
        let llvmWallPer = perAddress(llvmShort.wall, llvmLong.wall)
        // Both printed the same number of frames (a frame is two lines for llvm, one for vigil).
        let vigilFrames = vigilLong.lines - tenN
        let llvmFrames = (llvmLong.lines - tenN) / 2
        log(String(format: "per address: vigil %.0f ns (%.0f ns from a prebuilt SymCache), llvm-symbolizer %.0f ns, symbolic %.0f ns",
                   vigilPer * 1e9, cachedPer * 1e9, llvmPer * 1e9, symbolicPer * 1e9))
        log("frames for 10N addresses: vigil \(vigilFrames), llvm-symbolizer \(llvmFrames), symbolic \(symbolicFrames)")

        let buildRatio = ourBuild / symbolicBuild
        let sizeRatio = Double(ourCache.count) / Double(symbolicSize)
        let llvmRatio = llvmPer / vigilPer
        let symbolicRatio = symbolicPer / vigilPer
        let result: [String: Any] = [
            "suite": "symbols",
            "note": "measured side by side in one run; on a shared machine the absolute times are noisy, the ratios less so",
            "object": ["functions": files * functions, "arch": "arm64", "platform": "iOS 15.0",
                       "dsym_dwarf_bytes": dsymBytes, "text_bytes": text.size, "addresses_10n": tenN, "addresses_n": n],
            "symcache_build": ["vigil_seconds": ourBuild, "symbolic_seconds": symbolicBuild,
                               "ratio_vigil_over_symbolic": buildRatio, "goal": "<= 1", "met": buildRatio <= 1],
            "symcache_size": ["vigil_bytes": ourCache.count, "symbolic_bytes": symbolicSize,
                              "ratio_vigil_over_symbolic": sizeRatio, "goal": "<= 1", "met": sizeRatio <= 1],
            "batch_per_address": [
                "vigil_ns": vigilPer * 1e9, "llvm_symbolizer_ns": llvmPer * 1e9, "symbolic_lookup_ns": symbolicPer * 1e9,
                "measure": "CPU time (user + system) of the process, fastest of the repeats; symbolic: process time of the lookup loop",
                "vigil_cpu_seconds": ["n": vigilShort.cpu, "10n": vigilLong.cpu],
                "llvm_symbolizer_cpu_seconds": ["n": llvmShort.cpu, "10n": llvmLong.cpu],
                "symbolic_cpu_seconds": ["n": symbolicShort, "10n": symbolicLong],
                "vigil_wall_seconds": ["n": vigilShort.wall, "10n": vigilLong.wall],
                "llvm_symbolizer_wall_seconds": ["n": llvmShort.wall, "10n": llvmLong.wall],
                "wall_ns": ["vigil": vigilWallPer * 1e9, "llvm_symbolizer": llvmWallPer * 1e9],
                "wall_speedup_vs_llvm_symbolizer": llvmWallPer / vigilWallPer,
                "vigil_prebuilt_symcache_ns": cachedPer * 1e9,
                "vigil_prebuilt_symcache_cpu_seconds": ["n": cachedShort.cpu, "10n": cachedLong.cpu],
                "speedup_vs_llvm_symbolizer_prebuilt_symcache": llvmPer / cachedPer,
                "speedup_vs_llvm_symbolizer": llvmRatio, "goal_vs_llvm_symbolizer": ">= 20", "met_vs_llvm_symbolizer": llvmRatio >= 20,
                "speedup_vs_symbolic": symbolicRatio, "goal_vs_symbolic": ">= 1", "met_vs_symbolic": symbolicRatio >= 1,
                "frames_10n": ["vigil": vigilFrames, "llvm_symbolizer": llvmFrames, "symbolic": symbolicFrames],
            ],
            "tools": ["llvm_symbolizer": symbolizer, "symbolic": symbolic["version"] ?? "?"],
        ]
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        let json = try JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
        try json.write(to: out)
        log("wrote \(out.path)")
        return 0
    }

    // MARK: Program

    /// Generates and builds the program once per size (kept in `work` for later runs).
    private static func buildProgram(work: URL, files: Int, functions: Int) throws -> URL {
        let directory = work.appendingPathComponent("program-\(files)x\(functions)")
        let binary = directory.appendingPathComponent("bench")
        let dwarf = binary.appendingPathExtension("dSYM").appendingPathComponent("Contents/Resources/DWARF/bench")
        if FileManager.default.fileExists(atPath: dwarf.path) { return binary }
        log("generating and building \(files * functions) functions (once; kept in \(directory.path))")
        let sources = try SymbolsProgramGenerator(files: files, functionsPerFile: functions, seed: 7)
            .write(to: directory.appendingPathComponent("src"))
        let objects = directory.appendingPathComponent("obj")
        try FileManager.default.createDirectory(at: objects, withIntermediateDirectories: true)
        // Two compilers at a time: the machine is shared.
        var objectFiles: [String] = []
        var pending: [Process] = []
        for source in sources {
            let object = objects.appendingPathComponent(source.deletingPathExtension().lastPathComponent + ".o").path
            objectFiles.append(object)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/opt/swift/usr/bin/clang")
            process.arguments = ["-target", "arm64-apple-ios15.0", "-g", "-O2", "-ffreestanding", "-fno-stack-protector",
                                 "-c", source.path, "-o", object]
            try process.run()
            pending.append(process)
            if pending.count == 2 {
                pending[0].waitUntilExit()
                try check(pending.removeFirst(), "clang")
            }
        }
        for process in pending { process.waitUntilExit(); try check(process, "clang") }
        _ = try runCapturing("/usr/bin/ld64.lld-15", ["-arch", "arm64", "-platform_version", "ios", "15.0", "15.0",
                                                      "-e", "_main", "-o", binary.path] + objectFiles)
        _ = try runCapturing("/usr/bin/dsymutil-15", [binary.path, "-o", binary.appendingPathExtension("dSYM").path])
        return binary
    }

    private static func textSection(of path: String) throws -> (address: UInt64, size: UInt64) {
        let output = try runCapturing("/usr/bin/llvm-objdump-15", ["--section-headers", path])
        for line in output.split(separator: "\n") where line.contains(" __text ") {
            let fields = line.split(separator: " ")
            if fields.count >= 4, let size = UInt64(fields[2], radix: 16), let address = UInt64(fields[3], radix: 16) {
                return (address, size)
            }
        }
        throw SymbolsBenchmarkError("no __text section in \(path)")
    }

    // MARK: Processes

    /// A child's wall time and CPU time (user + system, from `wait4`), output to a file.
    struct Timing {
        var wall: Double
        var cpu: Double
        var lines: Int
    }

    /// Runs `executable` with stdin from `input` and stdout to a scratch file, `repeats` times;
    /// keeps the fastest wall time and the fastest CPU time (each is a lower bound of the cost
    /// with less of the other engineers' load in it).
    private static func timeBest(_ executable: String, _ arguments: [String], input: URL, output: URL,
                                 repeats: Int) throws -> Timing {
        var best = Timing(wall: .infinity, cpu: .infinity, lines: 0)
        for _ in 0..<repeats {
            var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, input.path, O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let started = DispatchTime.now()
            let status = posix_spawn(&pid, executable, &actions, nil, argv, environ)
            guard status == 0 else { throw SymbolsBenchmarkError("cannot start \(executable): \(status)") }
            var exitStatus: Int32 = 0
            var usage = rusage()
            while wait4(pid, &exitStatus, 0, &usage) < 0 {
                guard errno == EINTR else { throw SymbolsBenchmarkError("wait4 failed for \(executable)") }
            }
            let wall = seconds(since: started)
            guard exitStatus == 0 else { throw SymbolsBenchmarkError("\(executable) exited with status \(exitStatus)") }
            let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
            best.wall = min(best.wall, wall)
            best.cpu = min(best.cpu, cpu)
        }
        let data = try Data(contentsOf: output, options: .alwaysMapped)
        best.lines = data.withUnsafeBytes { buffer in buffer.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } }
        return best
    }

    @discardableResult
    private static func runCapturing(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try check(process, executable)
        return String(decoding: data, as: UTF8.self)
    }

    private static func check(_ process: Process, _ what: String) throws {
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw SymbolsBenchmarkError("\(what) failed with status \(process.terminationStatus)")
        }
    }

    private static func addressText(_ addresses: ArraySlice<UInt64>) -> String {
        addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n") + "\n"
    }

    private static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    private static func log(_ text: String) {
        CommandDispatcher.writeStandardError("symbols: \(text)")
    }

    /// symbolic's side: build time (fastest of R), SymCache size, lookup time for N and 10N
    /// relative addresses (fastest of R), and the frame count for 10N.
    private static let symbolicScript = """
        import io, json, sys, time
        import symbolic
        path, addresses_path, n, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        addresses = [int(line) for line in open(addresses_path) if line.strip()]
        build = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            cache = symbolic.Archive.open(path).get_object(arch="arm64").make_symcache()
            build = min(build, time.perf_counter() - start)
        buffer = io.BytesIO()
        cache.dump_into(buffer)
        data = buffer.getvalue()
        cache = symbolic.SymCache.from_bytes(data)
        def run(subset):
            best = float("inf")
            frames = 0
            for _ in range(repeats):
                start = time.process_time()
                frames = 0
                for address in subset:
                    frames += len(cache.lookup(address))
                best = min(best, time.process_time() - start)
            return best, frames
        short, _ = run(addresses[:n])
        long, frames = run(addresses)
        print(json.dumps({"build_seconds": build, "size_bytes": len(data), "lookup_seconds_n": short,
                          "lookup_seconds_10n": long, "frames_10n": frames,
                          "version": getattr(symbolic, "__version__", "?")}))
        """
}

/// The symbols benchmark could not run (a tool failed or printed nothing usable), with the reason.
struct SymbolsBenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
