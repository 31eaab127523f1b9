import Foundation

/// One child process run to its end: what it printed, how it ended, the CPU time the kernel
/// charged it (`wait4`), and the CLOCK_MONOTONIC instant its parent saw it end.
///
/// The child starts with no signal blocked (it must not inherit this thread's mask) and with
/// its standard output in a temporary file, read back when it has ended; its standard error is
/// inherited, or discarded on request.
struct ChildRun {
    /// The exit status; -1 when a signal ended the child.
    var exitStatus: Int32
    /// The signal that ended the child; nil when it exited.
    var signal: Int32?
    /// User plus system CPU time of the child, in seconds.
    var cpuSeconds: Double
    /// From just before the spawn to just after the child ended, in seconds.
    var wallSeconds: Double
    /// CLOCK_MONOTONIC right after the parent saw the child end, in nanoseconds.
    var exitedNanoseconds: UInt64
    /// Everything the child wrote to standard output.
    var output: String
    /// The last line of standard output, parsed as JSON (what `vigil-sample work` prints).
    var summary: [String: Any]?

    /// The `crash-at <ns>` the sample printed before crashing, if it did.
    var announcedNanoseconds: UInt64? {
        output.split(separator: "\n").first { $0.hasPrefix("crash-at ") }.flatMap { UInt64($0.dropFirst(9)) }
    }

    /// Runs `executable` with `arguments` and waits for it to end.
    static func start(_ executable: String, _ arguments: [String], discardStandardError: Bool = false) throws -> ChildRun {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-bench-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if discardStandardError { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let started = Date()
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard status == 0 else { throw BenchError("cannot start \(executable): errno \(status)") }
        var waitStatus: Int32 = 0
        var usage = rusage()
        while wait4(pid, &waitStatus, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4 failed: errno \(errno)") }
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let wall = Date().timeIntervalSince(started)
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        let lastLine = output.split(separator: "\n").last.map(String.init) ?? ""
        // WIFEXITED / WEXITSTATUS / WTERMSIG by hand: the macros are not imported.
        let termination = waitStatus & 0x7f
        let exited = termination == 0
        let signaled = termination != 0 && termination != 0x7f
        return ChildRun(exitStatus: exited ? (waitStatus >> 8) & 0xff : -1, signal: signaled ? termination : nil,
                        cpuSeconds: usage.cpuSeconds, wallSeconds: wall,
                        exitedNanoseconds: UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec), output: output,
                        summary: (try? JSONSerialization.jsonObject(with: Data(lastLine.utf8))) as? [String: Any])
    }
}

extension rusage {
    /// User plus system CPU time, in seconds.
    var cpuSeconds: Double {
        Double(ru_utime.tv_sec) + Double(ru_utime.tv_usec) / 1e6 + Double(ru_stime.tv_sec) + Double(ru_stime.tv_usec) / 1e6
    }
}
