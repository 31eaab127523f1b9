#if os(Linux)
import Foundation
import VigilCore

/// Process facts on Linux: start time from `/proc/self/stat` and `/proc/stat`, CPU time and page
/// faults from `getrusage`, memory from `/proc/self/status` (RSS) and `/proc/self/smaps_rollup`
/// (PSS), per-thread CPU time from `/proc/self/task/<tid>/stat`. Parsing is VigilCore's
/// (`ProcStat`, `ProcStatus`, `ProcSmapsRollup`, `ProcessStartTime`).
///
/// A missing or malformed file skips that one reading and is counted in ``counters``. Cost of a
/// ``resourceSample(at:threadLimit:)``: a few small file reads per call plus one per thread
/// (bounded by `threadLimit`); `smaps_rollup` makes the kernel walk the mappings (tens to
/// hundreds of microseconds), which is why it is read every few seconds, not more.
public final class ProcFSProcessFacts: ProcessFactsSource, @unchecked Sendable {
    private let root: String
    private let reader: ProcFileReader
    private let lock = NSLock()
    private var skipped = ProcessFactsCounters()
    private var cachedStart: Date?

    /// Facts read under `root` (`/proc` unless a test points it at a fake tree).
    public init(root: String = "/proc", reader: ProcFileReader = ProcFileReader()) {
        self.root = root
        self.reader = reader
    }

    public var counters: ProcessFactsCounters {
        lock.lock(); defer { lock.unlock() }
        return skipped
    }

    /// The process's start time. Measured as an age on the boot-time clock (`/proc/self/stat`
    /// field 22 against `CLOCK_BOOTTIME`) subtracted from now, which is exact to one clock tick;
    /// `/proc/stat`'s `btime` is whole seconds, so `btime + starttime` (VigilCore's
    /// `ProcessStartTime`, the fallback) can be up to a second early.
    public func processStartTime() -> Date? {
        lock.lock()
        if let cachedStart { lock.unlock(); return cachedStart }
        lock.unlock()
        guard let stat = text(root + "/self/stat") else { return nil }
        let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))
        let date: Date
        do {
            let parsed = try ProcStat(parsing: stat)
            var boot = timespec()
            if ticksPerSecond > 0, clock_gettime(CLOCK_BOOTTIME, &boot) == 0 {
                let now = Date()
                let bootSeconds = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9
                let age = bootSeconds - Double(parsed.startTimeTicks) / Double(ticksPerSecond)
                guard age.isFinite, age >= 0 else {
                    count(\.malformedFiles)
                    return nil
                }
                date = now.addingTimeInterval(-age)
            } else {
                guard let system = text(root + "/stat") else { return nil }
                date = try ProcessStartTime.date(stat: stat, systemStat: system, clockTicksPerSecond: ticksPerSecond)
            }
        } catch {
            count(\.malformedFiles)
            return nil
        }
        lock.lock(); cachedStart = date; lock.unlock()
        return date
    }

    public func cpuSeconds() -> Double? {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        return Self.seconds(usage.ru_utime) + Self.seconds(usage.ru_stime)
    }

    public func pageFaults() -> PageFaultCounts? {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        return PageFaultCounts(minor: UInt64(max(0, usage.ru_minflt)), major: UInt64(max(0, usage.ru_majflt)))
    }

    public func memoryBytes() -> UInt64? {
        guard let status = text(root + "/self/status") else { return nil }
        do { return try ProcStatus(parsing: status).rssBytes } catch {
            count(\.malformedFiles)
            return nil
        }
    }

    public func resourceSample(at instant: MonotonicInstant, threadLimit: Int) -> ResourceSample? {
        guard let cpu = cpuSeconds() else { return nil }
        var rss: UInt64?
        if let status = text(root + "/self/status") {
            do { rss = try ProcStatus(parsing: status).rssBytes } catch { count(\.malformedFiles) }
        }
        var pss: UInt64?
        if let rollup = text(root + "/self/smaps_rollup") {
            do { pss = try ProcSmapsRollup(parsing: rollup).pssBytes } catch { count(\.malformedFiles) }
        }
        guard let memory = rss ?? pss else { return nil }
        return ResourceSample(instant: instant, processCPUSeconds: cpu, threads: threadTimes(limit: threadLimit),
                              memoryBytes: memory, rssBytes: rss, pssBytes: pss)
    }

    /// Cumulative CPU time of up to `limit` threads of this process, from their `stat` files.
    public func threadTimes(limit: Int) -> [ThreadCPUTime] {
        guard limit > 0 else { return [] }
        let taskDirectory = root + "/self/task"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: taskDirectory) else {
            count(\.unreadableFiles)
            return []
        }
        // The main thread (its task id is the process id) first, as `task_threads` lists it on
        // Apple, then the others by id: past the limit, the main thread is never the one left
        // out, even where task ids have wrapped around below the process id.
        let main = UInt64(getpid())
        let ids = names.compactMap { UInt64($0) }.sorted { ($0 == main ? 0 : 1, $0) < ($1 == main ? 0 : 1, $1) }
        if ids.count > limit {
            lock.lock(); skipped.threadsBeyondLimit += ids.count - limit; lock.unlock()
        }
        let ticks = Int(sysconf(Int32(_SC_CLK_TCK)))
        var result: [ThreadCPUTime] = []
        result.reserveCapacity(min(ids.count, limit))
        for id in ids.prefix(limit) {
            let path = "\(taskDirectory)/\(id)/stat"
            // A thread that exited between the listing and the read is not an error worth
            // counting twice: it is simply gone.
            guard let stat = text(path, countMissing: false) else { continue }
            do {
                let parsed = try ProcStat(parsing: stat, file: path)
                result.append(ThreadCPUTime(id: id, name: parsed.comm.isEmpty ? nil : parsed.comm,
                                            cpuSeconds: parsed.cpuSeconds(clockTicksPerSecond: ticks)))
            } catch {
                count(\.malformedFiles)
            }
        }
        return result
    }

    private func text(_ path: String, countMissing: Bool = true) -> String? {
        switch reader.read(path) {
        case .success(let bytes):
            return String(decoding: bytes, as: UTF8.self)
        case .failure(.tooLarge):
            count(\.malformedFiles)
            return nil
        case .failure:
            if countMissing { count(\.unreadableFiles) }
            return nil
        }
    }

    private func count(_ field: WritableKeyPath<ProcessFactsCounters, Int>) {
        lock.lock(); defer { lock.unlock() }
        skipped[keyPath: field] += 1
    }

    private static func seconds(_ value: timeval) -> Double {
        Double(value.tv_sec) + Double(value.tv_usec) / 1_000_000
    }
}
#endif
