import Foundation
import VigilTestSupport

/// Kills a `vigil-sample` process once it has reached the state a test needs — instead of after a
/// fixed time, which a loaded machine can make too short (the process has not started yet) or
/// change the result of (the state was reached later). Polls every 20 ms, at most `deadline`
/// seconds; the test asserts on what was reached, so load only makes it slower.
enum SampleKill {
    struct Outcome {
        /// Whether `ready` said yes before the deadline.
        var reached: Bool
        /// From the start to the kill, in seconds (an upper bound on anything the process measured).
        var seconds: Double
        var outcome: SpawnedProcess.Outcome
    }

    /// Runs the sample with `arguments` and kills it with SIGKILL as soon as `ready()` holds.
    static func run(_ arguments: [String], environment: [String: String] = [:], deadline: Double = 60,
                    until ready: () -> Bool) throws -> Outcome {
        let started = DispatchTime.now().uptimeNanoseconds
        let handle = try SpawnedProcess.start(try BuildProducts.executable("vigil-sample").path, arguments, environment: environment)
        let limit = Date().addingTimeInterval(deadline)
        var reached = false
        while Date() < limit, !handle.hasExited {
            if ready() { reached = true; break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        handle.terminate(SIGKILL)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return Outcome(reached: reached, seconds: seconds, outcome: handle.wait(timeout: 30))
    }

    /// The JSON object in `url`, nil while it is absent or half written.
    static func object(_ url: URL) -> [String: Any]? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// The session marker in `data`'s `sessions/` folder (the running session's), if written yet.
    static func sessionMarker(_ data: URL) -> [String: Any]? {
        let folder = data.appendingPathComponent("sessions")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.lazy.compactMap { object(folder.appendingPathComponent($0)) }.first
    }

    /// The hang-in-progress marker's `durationMs` in `data`, nil while there is none.
    static func hangMarkerMs(_ data: URL) -> Double? {
        (object(data.appendingPathComponent("hang-in-progress.json"))?["marker"] as? [String: Any])?["durationMs"] as? Double
    }
}
