import Foundation
import Testing
import VigilCore
@testable import VigilReports
import VigilTestSupport

/// The SDK's crash events carry an uncaught exception's throw site (`exception.frames`); read as a
/// report it is the "Last Exception Backtrace", which the fingerprint of an uncaught exception uses.
@Suite("Exception backtrace of Vigil crash events")
struct ExceptionBacktraceTests {
    private func crashEvent(exceptionFrames: [Address]?) -> Event {
        var event = SampleEvents.make(.crash, index: 0)
        guard case .crash(var crash) = event.payload else { preconditionFailure("the sample is a crash") }
        crash.signal = "SIGABRT"
        crash.code = nil
        crash.faultAddress = nil
        crash.exception = CrashException(type: "NSInvalidArgumentException", reason: "-[Cart add:]: unrecognized selector",
                                         frames: exceptionFrames)
        event.payload = .crash(crash)
        return event
    }

    @Test("exception frames become the report's Last Exception Backtrace, mapped to their images")
    func backtraceFromFrames() throws {
        let base = SampleEvents.mainImage.loadAddress.value
        let event = crashEvent(exceptionFrames: [Address(base + 0x1200), Address(base + 0x1400)])
        let report = VigilEventReader.report(from: event)
        let backtrace = try #require(report.lastExceptionBacktrace)
        #expect(backtrace.map(\.imageOffset) == [0x1200, 0x1400])
        #expect(backtrace.allSatisfy { $0.imageIndex.map { report.images[$0].name } == "Shop" })
    }

    @Test("an event without exception frames has no backtrace")
    func noFrames() {
        #expect(VigilEventReader.report(from: crashEvent(exceptionFrames: nil)).lastExceptionBacktrace == nil)
        #expect(VigilEventReader.report(from: crashEvent(exceptionFrames: [])).lastExceptionBacktrace == nil)
    }
}
