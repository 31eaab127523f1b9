import Foundation
import Testing
import VigilCore
import VigilTestSupport

/// Real `vigil-sample` processes that end in each way a session can end; the outcome is read
/// from the `session` events the run (or the next run on the same data directory) wrote.
@Suite("vigil-sample sessions (real processes)")
struct SampleProcessSessionTests {
    private static let quiet = ["SWIFT_BACKTRACE": "enable=no"]

    private struct Run {
        var outcome: ChildProcess.Outcome
        var events: [Event]
        var sessions: [(event: Event, payload: SessionPayload)] {
            events.compactMap { event in
                if case .session(let payload) = event.payload { return (event, payload) } else { return nil }
            }
        }
    }

    /// Runs the sample with `--data-dir` (and `--out` unless `out` is false), killed after `timeout` seconds.
    private func runSample(_ arguments: [String], data: URL, timeout: Double = 60) throws -> Run {
        let out = data.deletingLastPathComponent().appendingPathComponent("out-\(UUID().uuidString.prefix(8)).jsonl")
        let outcome = try ChildProcess.run(try BuildProducts.executable("vigil-sample"),
                                           arguments + ["--data-dir", data.path, "--out", out.path],
                                           environment: Self.quiet, timeout: timeout)
        let bytes = (try? Data(contentsOf: out)) ?? Data()
        return Run(outcome: outcome, events: try EventJSON.decodeBatch(bytes).map { try $0.get() })
    }

    /// The next launch: a short clean session on the same directory; returns the session events
    /// of earlier runs it reported (not its own).
    private func nextLaunch(_ data: URL) throws -> [(event: Event, payload: SessionPayload)] {
        let next = try runSample(["session", "--foreground-seconds", "0.1"], data: data)
        #expect(next.outcome.exitStatus == 0, "\(next.outcome)")
        let own = next.sessions.filter { $0.payload.outcome == .exited && $0.payload.reasons == ["the session stopped cleanly"] }
        return next.sessions.filter { candidate in !own.contains { $0.event.session == candidate.event.session } }
    }

    @Test("a clean exit is one exited session with its foreground time (1 s, then 0.5 s in the background), and every event carries the install id")
    func cleanExit() throws {
        let directory = try TemporaryDirectory(prefix: "session")
        let data = directory.file("data")
        let run = try runSample(["session", "--foreground-seconds", "1", "--background-seconds", "0.5", "--user", "alice@example.com"],
                          data: data)
        #expect(run.outcome.exitStatus == 0, "\(run.outcome)")
        try #require(run.sessions.count == 1, "events: \(run.events.map(\.type))")
        let (event, session) = run.sessions[0]
        #expect(session.outcome == .exited)
        // The sample's timers fire late on a loaded machine, never early: at least the 1 s in the
        // foreground, then at least 0.5 s in the background that the foreground time leaves out,
        // all within the process's life.
        #expect(session.foregroundMs >= 990, "foreground \(session.foregroundMs) ms")
        #expect(session.durationMs - session.foregroundMs >= 490, "duration \(session.durationMs) ms, foreground \(session.foregroundMs) ms")
        #expect(session.durationMs <= run.outcome.seconds * 1000, "duration \(session.durationMs) ms in a \(run.outcome.seconds) s process")
        #expect(event.id == event.session)
        let install = try #require(event.install)
        let stored = try String(contentsOf: data.appendingPathComponent("install-id"), encoding: .utf8)
        #expect(UUID(uuidString: stored.trimmingCharacters(in: .whitespacesAndNewlines)) == install)
        #expect(event.user == SHA256Digest.hex("alice@example.com"), "the user id leaves the device hashed")
        #expect(run.events.allSatisfy { $0.install == install })
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("sessions").path)) ?? []
        #expect(leftovers.isEmpty, "a clean stop leaves no marker: \(leftovers)")

        let again = try runSample(["session", "--foreground-seconds", "0"], data: data)
        #expect(again.sessions.count == 1, "a clean session is not reported again")
        #expect(again.events.allSatisfy { $0.install == install }, "the install id survives restarts")
    }

    @Test("SIGKILL in the foreground: the next launch reports the session abnormal, with its foreground time")
    func killedInForeground() throws {
        let directory = try TemporaryDirectory(prefix: "session")
        let data = directory.file("data")
        // Killed once its marker (rewritten every 200 ms) holds a second of foreground time.
        let killed = try SampleKill.run(["session", "--foreground-seconds", "60", "--marker-interval-ms", "200",
                                         "--data-dir", data.path], environment: Self.quiet) {
            (SampleKill.sessionMarker(data)?["foregroundMs"] as? Double ?? 0) >= 1000
        }
        #expect(killed.reached && killed.outcome.signal == SIGKILL, "\(killed.outcome)")
        let reported = try nextLaunch(data)
        try #require(reported.count == 1, "sessions: \(reported.map(\.payload))")
        let session = reported[0].payload
        #expect(session.outcome == .abnormal, "\(session)")
        #expect(session.lastAppState == "foreground")
        #expect(session.foregroundMs >= 1000 && session.foregroundMs <= killed.seconds * 1000,
                "foreground \(session.foregroundMs) ms in a process killed after \(killed.seconds) s")
        #expect(session.reasons.first?.contains("no crash report, no clean exit") == true, "\(session.reasons)")
        #expect(try nextLaunch(data).isEmpty, "a session is reported once")
    }

    @Test("SIGKILL in the background: background-killed, not abnormal")
    func killedInBackground() throws {
        let directory = try TemporaryDirectory(prefix: "session")
        let data = directory.file("data")
        // Killed once its marker says it has spent a second in the background.
        let killed = try SampleKill.run(["session", "--foreground-seconds", "0.5", "--background-seconds", "60",
                                         "--marker-interval-ms", "200", "--data-dir", data.path], environment: Self.quiet) {
            guard let marker = SampleKill.sessionMarker(data), marker["appState"] as? String == "background",
                  let duration = marker["durationMs"] as? Double, let foreground = marker["foregroundMs"] as? Double else { return false }
            return duration - foreground >= 1000
        }
        #expect(killed.reached && killed.outcome.signal == SIGKILL, "\(killed.outcome)")
        let reported = try nextLaunch(data)
        try #require(reported.count == 1, "sessions: \(reported.map(\.payload))")
        let session = reported[0].payload
        #expect(session.outcome == .backgroundKilled, "\(session)")
        // At least the 0.5 s asked for (a late timer only adds), and the second in the background
        // is not counted as foreground.
        #expect(session.foregroundMs >= 490, "foreground \(session.foregroundMs) ms")
        #expect(session.durationMs - session.foregroundMs >= 1000, "duration \(session.durationMs) ms, foreground \(session.foregroundMs) ms")
        #expect(session.durationMs <= killed.seconds * 1000)
    }

    @Test("a process killed inside a hang: the next launch reports the session fatalHang")
    func killedInHang() throws {
        let directory = try TemporaryDirectory(prefix: "session")
        let data = directory.file("data")
        // Killed once the hang's marker is on disk.
        let killed = try SampleKill.run(["hang", "--seconds", "30", "--threshold-ms", "250", "--data-dir", data.path],
                                        environment: Self.quiet) { SampleKill.hangMarkerMs(data) != nil }
        #expect(killed.reached && killed.outcome.signal == SIGKILL, "\(killed.outcome)")
        let reported = try nextLaunch(data)
        try #require(reported.count == 1, "sessions: \(reported.map(\.payload))")
        #expect(reported[0].payload.outcome == .fatalHang, "\(reported[0].payload)")
        #expect(reported[0].event.app.id == "dev.vigil.sample")
    }

    @Test("a crash: the relaunch that recovers the report reports the session crashed")
    func crashed() throws {
        let directory = try TemporaryDirectory(prefix: "session")
        let data = directory.file("data")
        let crashed = try ChildProcess.run(try BuildProducts.executable("vigil-sample"),
                                           ["crash", "--kind", "segv", "--data-dir", data.path], environment: Self.quiet, timeout: 30)
        #expect(crashed.signal == SIGSEGV, "\(crashed)")
        let next = try runSample(["report"], data: data)
        let crash = try #require(next.events.first { $0.type == .crash }, "events: \(next.events.map(\.type))")
        let session = try #require(next.sessions.first { $0.event.session == crash.session }, "sessions: \(next.sessions.map(\.payload))")
        #expect(session.payload.outcome == .crashed)
        #expect(session.event.install != nil)
    }

    @Test("an app update between runs: a session killed in the foreground is not abnormal")
    func updateInBetween() throws {
        let directory = try TemporaryDirectory(prefix: "session")
        let data = directory.file("data")
        // Killed once its session marker is on disk.
        let killed = try SampleKill.run(["session", "--foreground-seconds", "60", "--app-version", "1.0.0", "--data-dir", data.path],
                                        environment: Self.quiet) { SampleKill.sessionMarker(data) != nil }
        #expect(killed.reached, "\(killed.outcome)")
        let next = try runSample(["session", "--foreground-seconds", "0.1", "--app-version", "1.0.1"], data: data)
        let old = try #require(next.sessions.first { $0.event.app.version == "1.0.0" }, "sessions: \(next.sessions.map(\.payload))")
        #expect(old.payload.outcome == .exited)
        #expect(old.payload.reasons.first?.contains("updated from 1.0.0") == true, "\(old.payload.reasons)")
    }
}
