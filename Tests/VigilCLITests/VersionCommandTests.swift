import Foundation
import Testing
import VigilCore
import VigilTestSupport

@Suite("vigil CLI")
struct VersionCommandTests {
    @Test("`vigil version` names the event schema it speaks")
    func version() throws {
        let outcome = try ChildProcess.run(try BuildProducts.executable("vigil"), ["version"], timeout: 30)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        #expect(outcome.standardOutput.contains("event schema \(Event.currentSchema)"))
    }

    @Test("an unknown command fails with EX_USAGE and says how to list commands")
    func unknownCommand() throws {
        let outcome = try ChildProcess.run(try BuildProducts.executable("vigil"), ["frobnicate"], timeout: 30)
        #expect(outcome.exitStatus == 64)
        #expect(outcome.standardError.contains("vigil help"))
    }
}
