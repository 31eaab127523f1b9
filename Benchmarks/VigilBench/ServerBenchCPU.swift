import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CPU time of processes from `/proc`, the load-independent figure of the server benchmark:
/// on a machine shared with other work, events/s measure the machine, CPU-seconds per event
/// measure the server.
enum ServerBenchCPU {
    /// Clock ticks per second of `/proc/PID/stat` times.
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// One process's `/proc/PID/stat` fields that matter here.
    struct Stat {
        var parent: Int32
        /// User + system seconds of the process itself.
        var ownSeconds: Double
        /// User + system seconds of its children that it waited for.
        var reapedChildrenSeconds: Double
    }

    /// Reads `/proc/PID/stat`; nil when the process is gone.
    static func stat(_ pid: Int32) -> Stat? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after the command name (which may hold spaces): state is field 3.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 15, let parent = Int32(fields[1]), let user = Double(fields[11]), let system = Double(fields[12]),
              let childUser = Double(fields[13]), let childSystem = Double(fields[14]) else { return nil }
        return Stat(parent: parent, ownSeconds: (user + system) / ticksPerSecond,
                    reapedChildrenSeconds: (childUser + childSystem) / ticksPerSecond)
    }

    /// User + system seconds of `pid` itself (threads included), or 0 when it is gone.
    static func seconds(of pid: Int32) -> Double {
        stat(pid)?.ownSeconds ?? 0
    }

    /// User + system seconds of `pid` and all its children, living and reaped: for the
    /// PostgreSQL postmaster, the whole cluster (backends, WAL writer, checkpointer).
    static func treeSeconds(of pid: Int32) -> Double {
        guard let root = stat(pid) else { return 0 }
        var total = root.ownSeconds + root.reapedChildrenSeconds
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let child = Int32(entry), child != pid, let info = stat(child), info.parent == pid else { continue }
            total += info.ownSeconds + info.reapedChildrenSeconds
        }
        return total
    }

    /// User + system seconds of this process so far.
    static func selfSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// The postmaster's pid from the first line of `DATA/postmaster.pid`.
    static func postmasterPID(dataDirectory: String) -> Int32? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }
}
