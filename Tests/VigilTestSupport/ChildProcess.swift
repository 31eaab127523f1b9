import Foundation

/// Runs an executable as a child process and collects how it ended, for real-process tests.
public enum ChildProcess {
    /// How a child process ended.
    public struct Outcome: Sendable, CustomStringConvertible {
        /// Exit status when it exited normally.
        public var exitStatus: Int32?
        /// Signal number when a signal killed it.
        public var signal: Int32?
        /// Whatever it wrote to standard output.
        public var standardOutput: String
        /// Whatever it wrote to standard error.
        public var standardError: String
        /// Wall time from launch to exit, in seconds.
        public var seconds: Double
        /// Whether the timeout killed it.
        public var timedOut: Bool
        /// CLOCK_MONOTONIC (ns) when this process learnt that the child had ended: an upper bound
        /// of the child's death on the clock a child can print its own instants with.
        public var endedAtMonotonicNs: UInt64 = 0

        public var description: String {
            let how = timedOut ? "timed out" : signal.map { "killed by signal \($0)" } ?? "exit \(exitStatus ?? -1)"
            return "\(how) after \(String(format: "%.2f", seconds)) s\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
        }
    }

    /// Runs `executable` with `arguments`, waits at most `timeout` seconds (then sends SIGKILL)
    /// and returns the outcome. `environment` entries are added to the current environment.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           currentDirectory: URL? = nil, timeout: TimeInterval = 120) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
        }
        // Foundation's waitUntilExit() spins a run loop on Linux and burns a core while it
        // waits; the termination handler wakes us instead.
        let finished = DispatchSemaphore(value: 0)
        let ended = Collected()
        process.terminationHandler = { _ in
            ended.markEnded()
            finished.signal()
        }
        let started = Date()
        try process.run()
        var timedOut = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
        }
        group.wait()
        let seconds = Date().timeIntervalSince(started)
        let bySignal = process.terminationReason == .uncaughtSignal
        return Outcome(exitStatus: bySignal ? nil : process.terminationStatus,
                       signal: bySignal ? process.terminationStatus : nil,
                       standardOutput: collected.text(isOut: true), standardError: collected.text(isOut: false),
                       seconds: seconds, timedOut: timedOut, endedAtMonotonicNs: ended.endedAt)
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()
        private var ended: UInt64 = 0
        func markEnded() {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            lock.lock(); defer { lock.unlock() }
            ended = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
        }
        var endedAt: UInt64 {
            lock.lock(); defer { lock.unlock() }
            return ended
        }
        func set(_ data: Data, isOut: Bool) {
            lock.lock(); defer { lock.unlock() }
            if isOut { out = data } else { err = data }
        }
        func text(isOut: Bool) -> String {
            lock.lock(); defer { lock.unlock() }
            return String(decoding: isOut ? out : err, as: UTF8.self)
        }
    }
}
