import Foundation
import VigilTestSupport
import XCTest

/// `vigil ble scan`, `vigil ble terminal` and `vigil ble bench --stack bumble` as real processes
/// against the Bumble peer on loopback.
final class BLEStackCommandTests: XCTestCase {
    func testScanAndTerminalFindAndIdentifyTheTLVTerminal() throws {
        let peer = try BumbleTerminalPeer(.init(advertisement: .tlvTerminal))
        let vigil = try BuildProducts.executable("vigil").path
        let endpoint = "tcp:127.0.0.1:\(peer.hostPort)"

        let scan = try SpawnedProcess.run(vigil, ["ble", "scan", "--transport", endpoint, "--seconds", "2", "--json"], timeout: 60)
        XCTAssertEqual(scan.exitStatus, 0, "\(scan)")
        let devices = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(scan.standardOutput.utf8)) as? [[String: Any]], "\(scan)")
        let terminal = try XCTUnwrap(devices.first { $0["peer"] as? String == "\(peer.peerAddress)/random" }, "\(devices)")
        XCTAssertEqual(terminal["name"] as? String, "TLV-POS T7700913")
        XCTAssertEqual(terminal["terminal"] as? String, "tlv-crc16")

        let run = try SpawnedProcess.run(vigil, ["ble", "terminal", "--transport", endpoint, "--json"], timeout: 90)
        XCTAssertEqual(run.exitStatus, 0, "\(run)")
        let identity = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run)")
        XCTAssertEqual(identity["vendor"] as? String, "tlv-crc16")
        XCTAssertEqual(identity["serialNumber"] as? String, "T7700913")
        XCTAssertEqual(identity["model"] as? String, "SIM-T100")
        XCTAssertEqual((identity["traceNumber"] as? NSNumber)?.intValue, 1_000)
        let commands = peer.events.filter { $0.name == "command" }.compactMap { $0.string("name") }
        XCTAssertEqual(commands, ["open", "deviceInfo", "serialNumber", "traceNumber"])
    }

    func testBenchOnTheBumbleStackReportsVerifiedGoodputBesideTheSimulator() throws {
        let vigil = try BuildProducts.executable("vigil").path
        guard FileManager.default.isExecutableFile(atPath: BumbleTerminalPeer.python.path) else {
            throw TestSupportError("Bumble is not installed: run scripts/bootstrap --ble")
        }
        let run = try SpawnedProcess.run(vigil, ["ble", "bench", "--stack", "bumble", "--bytes", "131072", "--json",
                                                 "--bumble-python", BumbleTerminalPeer.python.path,
                                                 "--bumble-peer", BumbleTerminalPeer.script.path], timeout: 180)
        XCTAssertEqual(run.exitStatus, 0, "\(run)")
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run)")
        XCTAssertEqual(report["stack"] as? String, "bumble")
        XCTAssertEqual(report["verified"] as? Bool, true)
        XCTAssertEqual(report["peerVerified"] as? Bool, true)
        XCTAssertEqual((report["mtu"] as? NSNumber)?.intValue, 247)
        XCTAssertGreaterThan((report["goodputBytesPerSecond"] as? NSNumber)?.doubleValue ?? 0, 0)
        XCTAssertGreaterThan((report["simulatorGoodputBytesPerSecond"] as? NSNumber)?.doubleValue ?? 0, 0)
        XCTAssertTrue((report["note"] as? String)?.contains("no radio timing") == true)
    }
}
