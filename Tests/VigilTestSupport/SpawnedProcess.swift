import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs child processes with `posix_spawn` and a blocking `waitpid`, output captured in files.
///
/// For tests that run long-lived or heavy children (servers, PostgreSQL, Chromium):
/// `Foundation.Process.waitUntilExit` on Linux spins its run loop on a busy core while it
/// waits, and a daemon the child leaves behind would hold a pipe open forever; files and
/// `waitpid` have neither problem.
public enum SpawnedProcess {
    /// How a child ended.
    public struct Outcome: Sendable, CustomStringConvertible {
        /// Exit status when it exited.
        public var exitStatus: Int32?
        /// The signal that killed it.
        public var signal: Int32?
        /// Its standard output.
        public var standardOutput: String
        /// Its standard error.
        public var standardError: String
        /// Whether the timeout killed it.
        public var timedOut: Bool

        public var description: String {
            let how = timedOut ? "timed out" : signal.map { "killed by signal \($0)" } ?? "exit \(exitStatus ?? -1)"
            return "\(how)\n--- stdout\n\(standardOutput.suffix(4000))\n--- stderr\n\(standardError.suffix(4000))"
        }
    }

    /// A running child.
    public final class Handle: @unchecked Sendable {
        /// Its process id.
        public let pid: pid_t
        private let outputPath: String
        private let errorPath: String
        private let lock = NSLock()
        private var outcome: Outcome?

        init(pid: pid_t, outputPath: String, errorPath: String) {
            self.pid = pid
            self.outputPath = outputPath
            self.errorPath = errorPath
        }

        /// What it has written to standard output so far (all of it once it has been reaped).
        public var standardOutput: String {
            lock.lock(); defer { lock.unlock() }
            return outcome?.standardOutput ?? (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        }
        /// What it has written to standard error so far (all of it once it has been reaped).
        public var standardError: String {
            lock.lock(); defer { lock.unlock() }
            return outcome?.standardError ?? (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        }

        /// Sends `signal` (SIGTERM by default).
        public func terminate(_ signal: Int32 = SIGTERM) {
            lock.lock(); defer { lock.unlock() }
            if outcome == nil { kill(pid, signal) }
        }

        /// Whether the child has ended, without waiting: it is reaped here if so, and a later
        /// ``wait(timeout:)`` returns how it ended. (`kill(pid, 0)` would still succeed for a
        /// child that ended but was not reaped.)
        public var hasExited: Bool {
            lock.lock()
            if outcome != nil { lock.unlock(); return true }
            lock.unlock()
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return false }
            record(status: status, timedOut: false)
            return true
        }

        /// Waits for the child to end (killing it after `timeout` seconds) and returns how.
        @discardableResult
        public func wait(timeout: Double = 120) -> Outcome {
            lock.lock()
            if let outcome { lock.unlock(); return outcome }
            lock.unlock()
            let finished = Flag()
            let pid = self.pid
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if !finished.isSet { finished.timedOut = true; kill(pid, SIGKILL) }
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            finished.isSet = true
            return record(status: status, timedOut: finished.timedOut)
        }

        /// Keeps how the reaped child ended, with its output, and deletes the output files.
        @discardableResult
        private func record(status: Int32, timedOut: Bool) -> Outcome {
            let exited = status & 0x7F == 0
            let result = Outcome(exitStatus: exited ? (status >> 8) & 0xFF : nil, signal: exited ? nil : status & 0x7F,
                                 standardOutput: standardOutput, standardError: standardError, timedOut: timedOut)
            unlink(outputPath)
            unlink(errorPath)
            lock.lock()
            outcome = result
            lock.unlock()
            return result
        }

        deinit {
            lock.lock()
            let running = outcome == nil
            lock.unlock()
            if running {
                kill(pid, SIGKILL)
                wait(timeout: 10)
            }
        }
    }

    private final class Flag: @unchecked Sendable {
        var isSet = false
        var timedOut = false
    }

    /// Starts `executable` with `arguments`; `environment` is added to the current environment.
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                             currentDirectory: String? = nil) throws -> Handle {
        let stem = NSTemporaryDirectory() + "/vigil-spawn-\(UUID().uuidString.prefix(8))"
        let outputPath = stem + ".out"
        let errorPath = stem + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // posix_spawn_file_actions_addchdir_np is not visible from Swift; a shell changes directory.
        let argv = currentDirectory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0, executable] + arguments }
            ?? [executable] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        var cEnvironment = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in cEnvironment { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, &cEnvironment)
        guard status == 0 else { throw TestSupportError("cannot start \(argv[0]): \(String(cString: strerror(status)))") }
        return Handle(pid: pid, outputPath: outputPath, errorPath: errorPath)
    }

    /// Runs `executable` to the end (at most `timeout` seconds).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           currentDirectory: String? = nil, timeout: Double = 120) throws -> Outcome {
        try start(executable, arguments, environment: environment, currentDirectory: currentDirectory).wait(timeout: timeout)
    }
}
