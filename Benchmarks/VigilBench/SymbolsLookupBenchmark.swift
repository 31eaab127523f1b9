import Foundation
import VigilCommandLine
import VigilSymbols

/// `vigil-bench symbols-lookups`: in-process SymCache lookup cost (no process start, no
/// formatting), for tuning the reader. Prints nanoseconds per lookup and frames per lookup.
enum SymbolsLookupBenchmark: Command {
    static let name = "symbols-lookups"
    static let summary = "time SymCache lookups in process (frame references, no strings)"
    static let usage = "usage: vigil-bench symbols-lookups --cache FILE --addresses FILE [--repeat R]"

    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, valued: ["cache", "addresses", "repeat"])
        let cache = try SymCache(contentsOf: try arguments.required("cache"))
        let text = try String(contentsOfFile: try arguments.required("addresses"), encoding: .utf8)
        let addresses = text.split(separator: "\n").compactMap { UInt64($0) }
        let repeats: Int = try arguments.number("repeat", default: 5)
        var frames: [FrameReference] = []
        frames.reserveCapacity(64)
        var best = Double.infinity
        var total = 0
        for _ in 0..<repeats {
            total = 0
            let started = clock_gettime_nsec_np_thread()
            for address in addresses {
                frames.removeAll(keepingCapacity: true)
                total += cache.frameReferences(relativeAddress: address, into: &frames)
            }
            best = min(best, Double(clock_gettime_nsec_np_thread() - started))
        }
        print(String(format: "%.1f ns per lookup (thread CPU time, best of %d), %.2f frames per lookup, %d addresses",
                     best / Double(addresses.count), repeats, Double(total) / Double(addresses.count), addresses.count))
        return 0
    }

    private static func clock_gettime_nsec_np_thread() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
