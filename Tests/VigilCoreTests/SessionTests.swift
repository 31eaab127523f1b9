import Foundation
import Testing
import VigilCore
import VigilTestSupport

@Suite("Sessions: foreground time and the outcome decided at the next launch")
struct SessionTests {
    private static let app = AppInfo(id: "com.example.shop", version: "3.2.0", build: "412")
    private static let device = DeviceInfo(model: "iPhone14,2", os: "iOS", osVersion: "18.1", arch: "arm64")
    private static let install = UUID(uuidString: "6A1F0C2E-5B7D-4E8A-9C3B-1D2E3F405162")!

    private func tracker(_ clock: TestClock, state: AppState = .foreground) -> SessionTracker {
        SessionTracker(session: UUID(), install: Self.install, user: nil, app: Self.app, device: Self.device, tags: [:],
                       at: clock.monotonicNow(), wallStart: clock.wallNow(), state: state)
    }

    private func marker(state: String = "foreground", cleanly: Bool = false, app: AppInfo = app,
                        osVersion: String = "18.1") -> SessionMarker {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        return SessionMarker(session: UUID(), install: Self.install, user: nil, app: app,
                             device: DeviceInfo(model: "iPhone14,2", os: "iOS", osVersion: osVersion, arch: "arm64"),
                             tags: [:], start: start, lastSeen: start.addingTimeInterval(60), durationMs: 60_000,
                             foregroundMs: 45_000, appState: state, endedCleanly: cleanly)
    }

    private func evidence(crash: Bool = false, hang: Bool = false, app: AppInfo = app, osVersion: String = "18.1") -> SessionEvidence {
        SessionEvidence(crashReported: crash, diedInHang: hang, currentApp: app, currentOSVersion: osVersion)
    }

    @Test("foreground time counts foreground and inactive spans, not background or suspended ones")
    func foregroundTime() {
        let clock = TestClock()
        var tracker = tracker(clock)
        clock.advance(byMilliseconds: 10_000)
        tracker.appStateChanged(.inactive, at: clock.monotonicNow())
        clock.advance(byMilliseconds: 2_000)
        tracker.appStateChanged(.background, at: clock.monotonicNow())
        clock.advance(byMilliseconds: 30_000)
        tracker.appStateChanged(.suspended, at: clock.monotonicNow())
        clock.advance(byMilliseconds: 5_000)
        tracker.appStateChanged(.foreground, at: clock.monotonicNow())
        clock.advance(byMilliseconds: 3_000)
        let marker = tracker.update(at: clock.monotonicNow())
        #expect(marker.durationMs == 50_000)
        #expect(marker.foregroundMs == 15_000)
        #expect(marker.appState == "foreground")
        #expect(marker.lastSeen == marker.start.addingTimeInterval(50))
        #expect(!marker.endedCleanly)
    }

    @Test("the wall start is fixed; a wall-clock jump later does not bend the session's end")
    func wallJump() {
        let clock = TestClock()
        var tracker = tracker(clock)
        let start = clock.wallNow()
        clock.setWall(start.addingTimeInterval(-3600))
        clock.advance(byMilliseconds: 4_000)
        let marker = tracker.update(at: clock.monotonicNow())
        #expect(marker.start == start)
        #expect(marker.lastSeen == start.addingTimeInterval(4))
    }

    @Test("an instant older than one already seen does not make time run backwards")
    func outOfOrderInstant() {
        let clock = TestClock()
        var tracker = tracker(clock)
        let early = clock.monotonicNow()
        clock.advance(byMilliseconds: 1_000)
        _ = tracker.update(at: clock.monotonicNow())
        tracker.appStateChanged(.background, at: early)
        clock.advance(byMilliseconds: 1_000)
        let marker = tracker.update(at: clock.monotonicNow())
        #expect(marker.foregroundMs == 1_000)
        #expect(marker.durationMs == 2_000)
    }

    @Test("a clean stop is exited with the whole foreground time, and says so")
    func cleanStop() {
        let clock = TestClock()
        var tracker = tracker(clock)
        clock.advance(byMilliseconds: 7_500)
        let ended = tracker.endCleanly(at: clock.monotonicNow())
        #expect(ended.marker.endedCleanly)
        #expect(ended.payload.outcome == .exited)
        #expect(ended.payload.foregroundMs == 7_500 && ended.payload.durationMs == 7_500)
        #expect(ended.payload.reasons == ["the session stopped cleanly"])
        let event = ended.marker.event(ended.payload)
        #expect(event.id == event.session, "a session reported twice is stored once")
        #expect(event.install == Self.install && event.type == .session)
    }

    @Test("the decider's rules, first match wins", arguments: [
        // (marker state, clean, crash, hang, app update, OS update) -> outcome
        ("foreground", true, true, true, false, false, SessionOutcome.exited),
        ("foreground", false, true, true, false, false, .crashed),
        ("background", false, true, false, false, false, .crashed),
        ("foreground", false, false, true, true, false, .fatalHang),
        ("foreground", false, false, false, true, false, .exited),
        ("foreground", false, false, false, false, true, .exited),
        ("background", false, false, false, false, false, .backgroundKilled),
        ("suspended", false, false, false, false, false, .backgroundKilled),
        ("inactive", false, false, false, false, false, .abnormal),
        ("foreground", false, false, false, false, false, .abnormal),
        ("a-state-from-a-newer-sdk", false, false, false, false, false, .abnormal),
    ])
    func rules(state: String, clean: Bool, crash: Bool, hang: Bool, appUpdate: Bool, osUpdate: Bool, expected: SessionOutcome) {
        let now = AppInfo(id: Self.app.id, version: appUpdate ? "3.2.1" : "3.2.0", build: appUpdate ? "413" : "412")
        let marker = marker(state: state, cleanly: clean)
        let payload = SessionOutcomeDecider.decide(marker, evidence: evidence(crash: crash, hang: hang, app: now,
                                                                           osVersion: osUpdate ? "18.2" : "18.1"),
                                                   decidedAt: marker.lastSeen.addingTimeInterval(90))
        #expect(payload.outcome == expected)
        #expect(!payload.reasons.isEmpty)
        #expect(payload.start == marker.start && payload.end == marker.lastSeen)
        #expect(payload.foregroundMs == 45_000 && payload.durationMs == 60_000)
        #expect(payload.lastAppState == state)
        if !clean { #expect(payload.reasons.last == "decided at the next launch, 90.0 s after it was last seen") }
    }

    @Test("the reasons name the update and the crash inside a hang")
    func reasons() {
        let updated = SessionOutcomeDecider.decide(marker(), evidence: evidence(app: AppInfo(id: Self.app.id, version: "3.2.1", build: "413")),
                                                   decidedAt: Date(timeIntervalSince1970: 1_767_225_700))
        #expect(updated.reasons[0].contains("from 3.2.0 (412) to 3.2.1 (413)"))
        let os = SessionOutcomeDecider.decide(marker(), evidence: evidence(osVersion: "18.2"), decidedAt: Date(timeIntervalSince1970: 0))
        #expect(os.reasons[0].contains("from 18.1 to 18.2"))
        #expect(os.reasons.last == "decided at the next launch, 0.0 s after it was last seen", "a clock behind the marker reads 0")
        let crashed = SessionOutcomeDecider.decide(marker(), evidence: evidence(crash: true, hang: true), decidedAt: Date())
        #expect(crashed.reasons.contains("it crashed inside a main-thread hang"))
        let other = SessionOutcomeDecider.decide(marker(), evidence: evidence(app: AppInfo(id: "com.other", version: "9", build: "9")),
                                                 decidedAt: Date())
        #expect(other.outcome == .abnormal, "another app id is no update of this one")
    }

    @Test("only crashes and fatal hangs count against crash-free sessions")
    func crashOutcomes() {
        #expect(SessionOutcome.allCases.filter(\.isCrash) == [.crashed, .fatalHang])
        #expect(SessionOutcome.backgroundKilled.rawValue == "background-killed")
    }

    @Test("SHA-256 matches the FIPS 180-4 examples")
    func sha256() {
        #expect(SHA256Digest.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Digest.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256Digest.hex(String(repeating: "a", count: 1_000))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
