import Foundation
import Testing
import VigilTestSupport

@Suite("vigil ble bench")
struct BLEBenchCommandTests {
    @Test("--json prints one object with exactly goodputBytesPerSecond, boundBytesPerSecond, ratio, retransmissions, verified")
    func jsonKeys() throws {
        let outcome = try ChildProcess.run(try BuildProducts.executable("vigil"),
                                           ["ble", "bench", "--json", "--bytes", "150000", "--loss", "0.02", "--seed", "7"], timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["goodputBytesPerSecond", "boundBytesPerSecond", "ratio", "retransmissions", "verified"])
        #expect(object["verified"] as? Bool == true)
        let bound = try #require(object["boundBytesPerSecond"] as? Double)
        #expect(abs(bound - 81_333.3) < 0.1)
        let ratio = try #require(object["ratio"] as? Double)
        #expect(ratio > 0.75 && ratio <= 1)
        #expect((object["retransmissions"] as? Int ?? 0) > 0)
    }

    @Test("the human output names goodput, bound, ratio, retransmissions and verification; bad options are usage errors")
    func textAndUsage() throws {
        let vigil = try BuildProducts.executable("vigil")
        let text = try ChildProcess.run(vigil, ["ble", "bench", "--mtu", "23", "--phy", "1M", "--interval-ms", "30", "--mode", "stopwait",
                                                "--bytes", "3000"], timeout: 120)
        #expect(text.exitStatus == 0, "\(text)")
        for word in ["goodput", "bound", "ratio", "retransmissions", "verified         yes"] { #expect(text.standardOutput.contains(word)) }
        for bad in [["ble", "bench", "--phy", "3M"], ["ble", "bench", "--mtu", "600"], ["ble", "bench", "--mode", "turbo"], ["ble", "frobnicate"]] {
            #expect(try ChildProcess.run(vigil, bad, timeout: 30).exitStatus == 64, "\(bad)")
        }
    }

    @Test("--attack flip|replay|reorder|flip-answer adds attackRejected (true) and the session's counts beside the usual fields; a bad attack is a usage error",
          arguments: ["flip", "replay", "reorder", "flip-answer"])
    func attack(name: String) throws {
        let vigil = try BuildProducts.executable("vigil")
        let outcome = try ChildProcess.run(vigil, ["ble", "bench", "--json", "--bytes", "20000", "--attack", name, "--seed", "3"], timeout: 120)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        #expect(Set(object.keys).isSuperset(of: ["goodputBytesPerSecond", "boundBytesPerSecond", "ratio", "retransmissions", "verified",
                                                  "attack", "attackRejected", "forgedCommands", "refusedCommands", "acceptedCommands",
                                                  "forgedAnswers", "refusedAnswers",
                                                  "sessionCompleted"]))
        #expect(object["attack"] as? String == name)
        #expect(object["attackRejected"] as? Bool == true)
        let onAnswers = name == "flip-answer"
        #expect(object["forgedCommands"] as? Int == (onAnswers ? 0 : 1) && object["refusedCommands"] as? Int == (onAnswers ? 0 : 1))
        #expect(object["forgedAnswers"] as? Int == (onAnswers ? 1 : 0) && object["refusedAnswers"] as? Int == (onAnswers ? 1 : 0))
        #expect(object["sessionCompleted"] as? Bool == (name == "replay"))
        #expect(try ChildProcess.run(vigil, ["ble", "bench", "--attack", "sniff"], timeout: 30).exitStatus == 64)
    }
}
