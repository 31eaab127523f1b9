import Foundation
import VigilCommandLine

/// One run of `vigil-sample` in the demo: a process that starts the SDK pointed at the demo
/// server, provokes something, and (unless it crashes) uploads through the SDK's store and
/// uploader before it exits.
struct DemoScenario: Sendable {
    /// What the run shows, for the progress line.
    var title: String
    /// `vigil-sample` arguments before the common ones (`--server`, `--key`, `--data-dir`…).
    var arguments: [String]
    /// The run's SDK data directory name under the demo's `runs/` (runs that share it are
    /// one app install: the crash and the relaunch that reports it).
    var dataName: String
    /// The signal the run is meant to die of (the crash), nil for a run that exits normally.
    var dies: Int32? = nil

    /// The two releases of the demo app: the first has the hang and the crash, the second is
    /// healthier (its own install, clean sessions and one short hang), so that the Releases page
    /// has two to compare.
    static let firstRelease = ["--app-version", "1.0.0", "--app-build", "100"]
    static let secondRelease = ["--app-version", "1.1.0", "--app-build", "110"]

    /// The scenarios in order. `quick` shortens the hang (tests); `api` is the demo backend's
    /// base URL under another name of this machine than the upload's, so the SDK records it.
    static func all(quick: Bool, api: String) -> [DemoScenario] {
        var list: [DemoScenario] = []
        if quick {
            list.append(DemoScenario(title: "a 1.5 s main-thread hang in blockMainThreadForDemo (threshold 1 s)",
                                     arguments: ["hang", "--block-ms", "1500", "--threshold-ms", "1000"], dataName: "hang"))
        } else {
            list.append(DemoScenario(title: "a 3 s main-thread hang in blockMainThreadForDemo",
                                     arguments: ["hang", "--seconds", "3"], dataName: "hang"))
            list.append(DemoScenario(title: "a 400 ms block with a 250 ms threshold",
                                     arguments: ["hang", "--block-ms", "400", "--threshold-ms", "250"], dataName: "hang-short"))
        }
        list += [
            DemoScenario(title: "60 Hz rendering with drops and a 900 ms freeze, then 120 Hz", arguments: ["frames"],
                         dataName: "frames"),
            DemoScenario(title: "a scripted cold launch", arguments: ["launch"], dataName: "launch"),
            DemoScenario(title: "slow and failing calls to the demo backend at \(api)/demo/api/…",
                         arguments: ["network", "--base-url", api, "--demo-api", "--parallel", "4"], dataName: "network"),
            DemoScenario(title: "a write through a null pointer: the process dies before it can upload",
                         arguments: ["crash", "--kind", "segv"], dataName: "app", dies: SIGSEGV),
            DemoScenario(title: "the relaunch: recovers the crash report and uploads it", arguments: ["report"], dataName: "app"),
        ]
        list = list.map { scenario in
            var scenario = scenario
            scenario.arguments += firstRelease
            return scenario
        }
        list += [
            DemoScenario(title: "release 1.1.0: a clean session, 1.5 s in the foreground and 0.5 s in the background",
                         arguments: ["session", "--foreground-seconds", "1.5", "--background-seconds", "0.5"] + secondRelease,
                         dataName: "release-1.1"),
            DemoScenario(title: "release 1.1.0: a 400 ms block with a 250 ms threshold",
                         arguments: ["hang", "--block-ms", "400", "--threshold-ms", "250"] + secondRelease, dataName: "release-1.1"),
        ]
        return list
    }

    /// What one run did.
    struct Outcome {
        /// Events the server acknowledged as accepted (from the sample's upload line).
        var accepted: Int
        /// The sample's upload line, or how it died.
        var detail: String
        /// Wall time of the run, in seconds.
        var seconds: Double
    }

    /// Runs `sample` with this scenario's arguments plus the upload options, output to
    /// `runs/<n>-<command>.log`. Throws when it exits otherwise than intended.
    func run(sample: String, common: [String], runs: URL, index: Int) throws -> Outcome {
        let data = runs.appendingPathComponent(dataName, isDirectory: true)
        let log = runs.appendingPathComponent("\(index)-\(arguments[0]).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        guard let output = FileHandle(forWritingAtPath: log.path) else { throw DemoError("cannot write \(log.path)") }
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sample)
        process.arguments = arguments + ["--data-dir", data.path] + common
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        // Poll rather than waitUntilExit, which spins a core on Linux.
        while process.isRunning { Thread.sleep(forTimeInterval: 0.05) }
        let seconds = Date().timeIntervalSince(started)
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let signaled = process.terminationReason == .uncaughtSignal
        if let dies {
            guard signaled, process.terminationStatus == dies else {
                throw DemoError("vigil-sample \(arguments[0]) was meant to die of signal \(dies) but "
                    + (signaled ? "died of signal \(process.terminationStatus)" : "exited with \(process.terminationStatus)")
                    + "; its output (\(log.path)):\n\(text.suffix(2000))")
            }
            return Outcome(accepted: 0, detail: "died of signal \(dies) as intended", seconds: seconds)
        }
        guard !signaled, process.terminationStatus == 0 else {
            let how = signaled ? "died of signal \(process.terminationStatus)" : "exited with \(process.terminationStatus)"
            throw DemoError("vigil-sample \(arguments.joined(separator: " ")) \(how); its output (\(log.path)):\n\(text.suffix(2000))")
        }
        let line = text.split(separator: "\n").last { $0.hasPrefix("vigil-sample: upload to ") }.map(String.init)
        guard let line, let accepted = Self.acceptedCount(line) else {
            throw DemoError("vigil-sample \(arguments[0]) did not report its upload; its output (\(log.path)):\n\(text.suffix(2000))")
        }
        return Outcome(accepted: accepted, detail: line, seconds: seconds)
    }

    /// N in `vigil-sample: upload to URL: N accepted, …`.
    static func acceptedCount(_ line: String) -> Int? {
        guard let range = line.range(of: " accepted") else { return nil }
        let before = line[..<range.lowerBound]
        let digits = before.reversed().prefix { $0.isNumber }
        return Int(String(digits.reversed()))
    }
}
