#if canImport(Darwin)
// `mach_task_self_` (the C macro `mach_task_self()` reads it) is set once by libSystem before
// any Swift code runs and never written again; SDKs before iOS 18.4 / macOS 15.4 do not mark it
// safe to read from any thread, which this import says.
@preconcurrency import Darwin
import Foundation
import VigilCore

/// Process facts on Apple platforms: start time from `sysctl` (`kp_proc.p_starttime`), CPU
/// time and page faults from `getrusage`, memory from `task_info(TASK_VM_INFO)`
/// (`phys_footprint`, what the OS charges the app for), per-thread CPU from `thread_info`.
/// Mirrors ``ProcFSProcessFacts`` (Linux).
public final class MachProcessFacts: ProcessFactsSource, @unchecked Sendable {
    private let lock = NSLock()
    private var skipped = ProcessFactsCounters()

    public init() {}

    public var counters: ProcessFactsCounters {
        lock.lock(); defer { lock.unlock() }
        return skipped
    }

    public func processStartTime() -> Date? {
        var info = kinfo_proc()
        var size = MemoryLayout<kinfo_proc>.stride
        var name: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, getpid()]
        guard sysctl(&name, u_int(name.count), &info, &size, nil, 0) == 0 else {
            lock.lock(); skipped.unreadableFiles += 1; lock.unlock()
            return nil
        }
        let start = info.kp_proc.p_un.__p_starttime
        return Date(timeIntervalSince1970: Double(start.tv_sec) + Double(start.tv_usec) / 1_000_000)
    }

    public func cpuSeconds() -> Double? {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    public func pageFaults() -> PageFaultCounts? {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return PageFaultCounts(minor: UInt64(max(0, usage.ru_minflt)), major: UInt64(max(0, usage.ru_majflt)))
    }

    public func resourceSample(at instant: MonotonicInstant, threadLimit: Int) -> ResourceSample? {
        guard let cpu = cpuSeconds(), let footprint = physicalFootprint() else { return nil }
        return ResourceSample(instant: instant, processCPUSeconds: cpu, threads: threadTimes(limit: threadLimit),
                              memoryBytes: footprint)
    }

    public func memoryBytes() -> UInt64? { physicalFootprint() }

    private func physicalFootprint() -> UInt64? {
        var info = task_vm_info_data_t()
        var count = mach_msg_type_number_t(MemoryLayout<task_vm_info_data_t>.size / MemoryLayout<natural_t>.size)
        let status = withUnsafeMutablePointer(to: &info) {
            $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                task_info(mach_task_self_, task_flavor_t(TASK_VM_INFO), $0, &count)
            }
        }
        return status == KERN_SUCCESS ? info.phys_footprint : nil
    }

    private func threadTimes(limit: Int) -> [ThreadCPUTime] {
        var threads: thread_act_array_t?
        var count: mach_msg_type_number_t = 0
        guard task_threads(mach_task_self_, &threads, &count) == KERN_SUCCESS, let threads else { return [] }
        defer {
            for index in 0..<Int(count) { mach_port_deallocate(mach_task_self_, threads[index]) }
            vm_deallocate(mach_task_self_, vm_address_t(UInt(bitPattern: threads)),
                          vm_size_t(Int(count) * MemoryLayout<thread_act_t>.stride))
        }
        var result: [ThreadCPUTime] = []
        for index in 0..<min(Int(count), limit) {
            var info = thread_basic_info()
            var infoCount = mach_msg_type_number_t(MemoryLayout<thread_basic_info>.size / MemoryLayout<natural_t>.size)
            let status = withUnsafeMutablePointer(to: &info) {
                $0.withMemoryRebound(to: integer_t.self, capacity: Int(infoCount)) {
                    thread_info(threads[index], thread_flavor_t(THREAD_BASIC_INFO), $0, &infoCount)
                }
            }
            guard status == KERN_SUCCESS else { continue }
            let seconds = Double(info.user_time.seconds) + Double(info.user_time.microseconds) / 1e6
                + Double(info.system_time.seconds) + Double(info.system_time.microseconds) / 1e6
            result.append(ThreadCPUTime(id: UInt64(threads[index]), name: nil, cpuSeconds: seconds))
        }
        return result
    }
}
#endif
