import Foundation
import Testing
import VigilCore
import VigilRuntime
import VigilTestSupport

@Suite("Crash handler ordering with the app's own handlers (real processes)")
struct CrashHandlerOrderingTests {
    /// `vigil-stage` values the app handler records (`vigil_crash_stage_value`).
    static let armed = CrashHandler.Stage.armed.rawValue
    static let written = CrashHandler.Stage.written.rawValue

    @Test("a handler installed before Vigil runs after Vigil's report is written, and the process still dies with the original signal",
          arguments: ["segv", "abort"])
    func appHandlerInstalledBefore(kind: String) throws {
        let scenario = try CrashScenario()
        let died = try scenario.crash(kind, ["--app-handler", "before", "--marker", scenario.marker.path])
        let signal = kind == "segv" ? Signals.segv : Signals.abort
        #expect(died.signal == signal, "\(died)")
        #expect(scenario.markerLines() == ["app-before signal=\(signal) vigil-stage=\(Self.written)"],
                "the app's handler ran once, after Vigil's report was complete")
        let next = try scenario.recover()
        #expect(next.crashes.count == 1)
    }

    @Test("a handler installed after Vigil runs first and chains to Vigil's, which writes the report; the process dies with the original signal",
          arguments: ["segv", "abort"])
    func appHandlerInstalledAfter(kind: String) throws {
        let scenario = try CrashScenario()
        let died = try scenario.crash(kind, ["--app-handler", "after", "--marker", scenario.marker.path])
        let signal = kind == "segv" ? Signals.segv : Signals.abort
        #expect(died.signal == signal, "\(died)")
        #expect(scenario.markerLines() == ["app-after signal=\(signal) vigil-stage=\(Self.armed)"],
                "the app's handler ran once, before Vigil's")
        let next = try scenario.recover()
        try #require(next.crashes.count == 1)
        #expect(next.crashes[0].payload.signal == SignalDescription.name(ofSignal: signal))
    }
}
