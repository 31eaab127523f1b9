import Foundation
import VigilBLE
import VigilBLEHost
import VigilCore
import VigilTestSupport
import XCTest

/// VigilBLE's own stack end to end over a real Bluetooth LE host: `BLEConnection`,
/// `PaymentTerminal` with both vendor adapters, the framing and `TransferSender`, on
/// ``HostTransport`` → ``BLEHost`` → HCI H4 over loopback TCP → a Bumble virtual controller →
/// Bumble's local link → a second controller → the Python terminal peer in
/// `Tests/BumblePeer` (started and stopped by each test through `BumbleTerminalPeer`).
///
/// Bumble's link has no radio timing: these tests pin correctness (bytes, sequences, errors,
/// recovery), not speed.
final class TerminalPeerStackTests: XCTestCase {
    func testDiscoveryFindsTheTerminalAndNegotiatesMTU247() throws {
        let stack = try PeerStack(.init(advertisement: .framedTerminal))
        try stack.onQueue { try stack.connection.connect(to: DeviceAdapterFactory.builtIn.connectionTarget) }
        try stack.waitUntil("the link is ready") { stack.connection.state.isReady }
        let (writeLength, advertisement, profile) = stack.onQueue {
            (stack.connection.maximumWriteLength(.withoutResponse), stack.connection.peerAdvertisement, stack.connection.activeProfile)
        }
        XCTAssertEqual(writeLength, 244, "ATT MTU 247 leaves 244 bytes per Write Command")
        XCTAssertEqual(advertisement?.services, [FramedTerminalAdapter.service])
        XCTAssertEqual(profile?.service, FramedTerminalAdapter.service)
        XCTAssertEqual(try stack.peer.waitForEvent("mtu").int("mtu"), 247, "the peer saw the same MTU")
    }

    func testFramedTerminalRunsTheWholeConnectedSequence() throws {
        try runConnectedSequence(.framedTerminal, vendor: "framed-aa55", serial: "A55100042", commandCode: "open")
    }

    func testTLVTerminalRunsTheWholeConnectedSequence() throws {
        try runConnectedSequence(.tlvTerminal, vendor: "tlv-crc16", serial: "T7700913", commandCode: "open")
    }

    func testWindowTransferOfOneMegabyteArrivesByteExactWithItsSHA256Verified() throws {
        let payload = Self.payload(count: 1 << 20, seed: 11)
        let stack = try PeerStack(.init(advertisement: .transferPeer))
        let report = try stack.transfer(payload, mode: .window, timeout: 240)
        XCTAssertTrue(report.verified)
        XCTAssertEqual(report.bytes, payload.count)
        XCTAssertEqual(report.mode, .window)
        let completed = try stack.peer.waitForEvent("transfer-completed")
        XCTAssertEqual(completed.bool("verified"), true)
        XCTAssertEqual(completed.int("stored"), payload.count)
        XCTAssertEqual(completed.string("sha256"), Self.hex(SHA256Hasher.hash(payload)), "the peer stored exactly these bytes")
    }

    func testStopAndWaitTransferArrivesByteExact() throws {
        let payload = Self.payload(count: 24 * 1024, seed: 12)
        let stack = try PeerStack(.init(advertisement: .transferPeer))
        let report = try stack.transfer(payload, mode: .stopAndWait, timeout: 120)
        XCTAssertTrue(report.verified)
        XCTAssertEqual(report.mode, .stopAndWait)
        XCTAssertEqual(report.window, 1)
        let completed = try stack.peer.waitForEvent("transfer-completed")
        XCTAssertEqual(completed.string("sha256"), Self.hex(SHA256Hasher.hash(payload)))
    }

    func testLinkDroppedByThePeerMidTransferResumesAfterReconnect() throws {
        let payload = Self.payload(count: 256 * 1024, seed: 13)
        let stack = try PeerStack(.init(advertisement: .transferPeer, dropLinkAtBytes: 100_000))
        let report = try stack.transfer(payload, mode: .window, timeout: 180)
        XCTAssertTrue(report.verified)
        XCTAssertGreaterThanOrEqual(report.resumes, 1, "the sender resumed after the drop")
        let dropped = try stack.peer.waitForEvent("disconnected")
        XCTAssertGreaterThan(dropped.int("stored") ?? 0, 0)
        XCTAssertLessThan(dropped.int("stored") ?? .max, payload.count, "the link dropped mid-transfer")
        let resumed = stack.peer.events.filter { $0.name == "transfer-began" }.compactMap { $0.int("resume_offset") }
        XCTAssertTrue(resumed.contains { $0 > 0 }, "the peer resumed rather than restarted: \(resumed)")
        let completed = try stack.peer.waitForEvent("transfer-completed")
        XCTAssertEqual(completed.string("sha256"), Self.hex(SHA256Hasher.hash(payload)))
    }

    func testATTErrorOnAWriteSurfacesAsATypedWriteFailure() throws {
        let attError: (characteristic: String, code: UInt8) = (FramedTerminalAdapter.writeCharacteristic.description, 0x80)
        let stack = try PeerStack(BumbleTerminalPeer.Options(advertisement: .framedTerminal, attErrors: [attError]))
        try stack.connectReady(.service(FramedTerminalAdapter.profile))
        let outcome = Outcome<Result<Void, ConnectionError>>()
        stack.onQueue {
            stack.connection.write([0xAA, 0x55, 0x01, 0x00, 0x00, 0x00, 0x00], to: FramedTerminalAdapter.writeCharacteristic) { outcome.set($0) }
        }
        let result = try stack.waitFor("the write's answer") { outcome.value }
        guard case .failure(.writeFailed(let characteristic, let failure)) = result else {
            return XCTFail("expected writeFailed, got \(result)")
        }
        XCTAssertEqual(characteristic, FramedTerminalAdapter.writeCharacteristic)
        XCTAssertEqual(failure.code, 0x80, "the peer's ATT error code: \(failure)")
        XCTAssertTrue(stack.onQueue { stack.connection.state.isReady }, "an ATT error leaves the link up")
    }

    func testUnansweredWriteRequestTimesOutAsATypedError() throws {
        var host = HostConfiguration()
        host.attTransactionTimeoutMs = 1_500
        let stack = try PeerStack(.init(advertisement: .tlvTerminal, unansweredWrites: [TLVTerminalAdapter.writeCharacteristic.description]),
                                  host: host)
        try stack.connectReady(.peer(stack.peerIdentifier, profile: TLVTerminalAdapter.profile))
        let outcome = Outcome<Result<Void, ConnectionError>>()
        stack.onQueue { stack.connection.write([0x02], to: TLVTerminalAdapter.writeCharacteristic) { outcome.set($0) } }
        let result = try stack.waitFor("the write's failure", timeout: 20) { outcome.value }
        guard case .failure(let error) = result else { return XCTFail("the unanswered write succeeded") }
        _ = try stack.peer.waitForEvent("write-unanswered")
        switch error {
        case .writeFailed(let characteristic, let failure):
            XCTAssertEqual(characteristic, TLVTerminalAdapter.writeCharacteristic)
            XCTAssertTrue(failure.description.contains("timed out"), "\(failure)")
        case .disconnected:
            break  // the timeout's link drop reached the connection before the write's failure
        default:
            XCTFail("unexpected error \(error)")
        }
        XCTAssertNoThrow(try stack.peer.waitForEvent("disconnected"), "an ATT timeout drops the link, as the spec requires")
    }

    func testSilentTerminalCommandTimesOutAsATypedDeviceError() throws {
        let stack = try PeerStack(.init(advertisement: .framedTerminal, silentCommands: ["traceNumber"]))
        try stack.connectReady(.service(FramedTerminalAdapter.profile))
        let adapter = stack.onQueue { FramedTerminalAdapter(connection: stack.connection, commandTimeoutMs: 1_500) }
        let outcome = Outcome<Result<UInt32, DeviceError>>()
        stack.onQueue { adapter.transactionTraceNumber(trace: nil) { outcome.set($0) } }
        let result = try stack.waitFor("the command's end", timeout: 20) { outcome.value }
        guard case .failure(.timedOut(let command, _)) = result else { return XCTFail("expected timedOut, got \(result)") }
        XCTAssertEqual(command, "traceNumber")
    }

    func testNotificationFloodLosesNoFrames() throws {
        let count = 2_000
        let stack = try PeerStack(.init(advertisement: .framedTerminal))
        let control = GATTProfile(service: PeerStack.controlService, characteristics: [PeerStack.controlCharacteristic],
                                  notifying: [PeerStack.controlCharacteristic])
        // The control service is not advertised: connect to the peer by address.
        try stack.connectReady(.peer(stack.peerIdentifier, profile: control))
        let frames = Outcome<[Frame]>()
        frames.set([])
        let reassembler = Outcome<FrameReassembler>()
        reassembler.set(FrameReassembler(format: FramedTerminalAdapter.format))
        let token = stack.onQueue {
            stack.connection.addObserver(ConnectionObserver(valueReceived: { characteristic, bytes in
                guard characteristic == PeerStack.controlCharacteristic, var parser = reassembler.value else { return }
                let out = parser.append(bytes)
                reassembler.set(parser)
                for case .frame(let frame) in out { frames.update { $0?.append(frame) } }
            }))
        }
        // 01 | count u32 LE | frame payload length u16 LE (200).
        let request: [UInt8] = [0x01, UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24), 200, 0]
        let written = Outcome<Result<Void, ConnectionError>>()
        stack.onQueue { stack.connection.write(request, to: PeerStack.controlCharacteristic) { written.set($0) } }
        XCTAssertNoThrow(try stack.waitFor("the flood request's answer") { written.value }.get())
        _ = try stack.waitFor("\(count) frames", timeout: 60) { (frames.value?.count ?? 0) >= count ? true : nil }
        let received = frames.value ?? []
        XCTAssertEqual(received.count, count)
        XCTAssertEqual(received.map { Int($0.payload.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }, Array(0..<count),
                       "every frame, in order")
        XCTAssertEqual(reassembler.value?.statistics.discardedBytes, 0, "no byte was damaged or lost")
        stack.onQueue { stack.connection.removeObserver(token) }
    }

    func testMissingBumbleVenvFailsSayingHowToInstallIt() {
        let missing = URL(fileURLWithPath: "/nonexistent/bumble-venv/bin/python")
        XCTAssertThrowsError(try BumbleTerminalPeer(python: missing)) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.contains("scripts/bootstrap --ble"), text)
            XCTAssertTrue(text.contains(missing.path), text)
        }
    }

    // MARK: Helpers

    private func runConnectedSequence(_ advertisement: BumbleTerminalPeer.Advertisement, vendor: String, serial: String,
                                      commandCode: String) throws {
        let stack = try PeerStack(.init(advertisement: advertisement))
        let keys = WorkKeys(pinKey: Array(0..<16), macKey: Array(16..<32), dataKey: Array(32..<48))
        let expected = KeyCheckValues(pin: Self.checkValue(keys.pinKey), mac: Self.checkValue(keys.macKey), data: Self.checkValue(keys.dataKey))
        let outcome = Outcome<Result<PaymentTerminal.Identity, PaymentTerminalError>>()
        let terminal = stack.onQueue {
            PaymentTerminal(connection: stack.connection) { _, verdict in verdict(.success(.approvedWithKeyUpdate(keys, expectedCheckValues: expected))) }
        }
        stack.onQueue { terminal.connect { outcome.set($0) } }
        let identity = try stack.waitFor("the terminal's connected status", timeout: 60) { outcome.value }.get()
        XCTAssertEqual(identity.vendor, vendor)
        XCTAssertEqual(identity.serialNumber, serial)
        XCTAssertEqual(identity.info, TerminalInfo(model: "SIM-T100", firmware: "4.2.1"))
        XCTAssertEqual(identity.traceNumber, 1_000)
        XCTAssertTrue(stack.onQueue { terminal.isConnected })
        let commands = stack.peer.events.filter { $0.name == "command" }
        XCTAssertEqual(commands.map { $0.string("name") ?? "" }, ["open", "deviceInfo", "serialNumber", "traceNumber", "updateWorkKeys"],
                       "the peer saw the sequence in order")
        XCTAssertEqual(Set(commands.compactMap { $0.string("vendor") }), [vendor])
        stack.onQueue { terminal.disconnect() }
    }

    private static func checkValue(_ key: [UInt8]) -> [UInt8] { Array(SHA256Hasher.hash(key).prefix(4)) }

    private static func payload(count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// A value set on the BLE queue and read from the test's thread.
final class Outcome<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
    func update(_ body: (inout Value?) -> Void) { lock.withLock { body(&stored) } }
}

/// The Bumble peer, and VigilBLE on a ``HostTransport`` connected to the other controller, on
/// one dispatch queue.
final class PeerStack: @unchecked Sendable {
    /// The test peer's control service (a write asks for a notification flood).
    static let controlService: BLEUUID = "5A1BFF00-2F5C-4E8B-9C1D-0000B1E7F0A1"
    static let controlCharacteristic: BLEUUID = "5A1BFF01-2F5C-4E8B-9C1D-0000B1E7F0A1"

    let peer: BumbleTerminalPeer
    let scheduler = DispatchLinkScheduler(queue: DispatchQueue(label: "vigil.ble.stack-test"))
    let transport: HostTransport
    let connection: BLEConnection

    /// The peer as ``HostTransport`` names it (address and type).
    var peerIdentifier: PeerIdentifier { PeerIdentifier("\(peer.peerAddress)/random") }

    init(_ options: BumbleTerminalPeer.Options, host: HostConfiguration = HostConfiguration(),
         connection configuration: ConnectionConfiguration = ConnectionConfiguration(
             reconnect: ReconnectPolicy(maxAttempts: 8, initialDelayMs: 100), seed: 7)) throws {
        peer = try BumbleTerminalPeer(options)
        let transport = try HostTransport.open(.tcp(host: "127.0.0.1", port: peer.hostPort), scheduler: scheduler, configuration: host)
        let scheduler = self.scheduler
        self.transport = transport
        connection = scheduler.queue.sync { BLEConnection(transport: transport, scheduler: scheduler, configuration: configuration) }
    }

    deinit {
        if let path = ProcessInfo.processInfo.environment["VIGIL_BUMBLE_LOG"] { try? peer.log.write(toFile: path, atomically: true, encoding: .utf8) }
        let connection = self.connection
        let transport = self.transport
        scheduler.queue.sync {
            connection.disconnect()
            transport.host.close()
        }
        peer.stop()
    }

    /// Runs `body` on the BLE queue.
    func onQueue<T>(_ body: () throws -> T) rethrows -> T { try scheduler.queue.sync(execute: body) }

    /// Polls `probe` on the BLE queue until it returns a value; throws with the peer's log after `timeout` s.
    func waitFor<T>(_ what: String, timeout: Double = 30, _ probe: () -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let value = onQueue(probe) { return value }
            guard Date() < deadline else {
                let state = onQueue { connection.state.name }
                throw TestSupportError("timed out after \(timeout) s waiting for \(what) (link \(state)); peer events: "
                    + "\(peer.events.suffix(12))\n--- peer log\n\(peer.log.suffix(2000))")
            }
            usleep(5_000)
        }
    }

    func waitUntil(_ what: String, timeout: Double = 30, _ condition: () -> Bool) throws {
        _ = try waitFor(what, timeout: timeout) { condition() ? true : nil }
    }

    /// Connects to the advertised peer with `target` and waits for the link to be ready.
    func connectReady(_ target: ConnectionTarget) throws {
        try onQueue { try connection.connect(to: target) }
        try waitUntil("the link is ready") { connection.state.isReady }
    }

    /// Connects and sends `payload` with the transfer protocol; returns the report.
    func transfer(_ payload: [UInt8], mode: TransferMode, timeout: Double) throws -> TransferReport {
        try connectReady(.service(TransferService.profile))
        let outcome = Outcome<Result<TransferReport, TransferError>>()
        let sender = onQueue {
            TransferSender(connection: connection, characteristic: TransferService.characteristic, payload: payload,
                           configuration: TransferConfiguration(mode: mode)) { outcome.set($0) }
        }
        onQueue { sender.start() }
        return try waitFor("the transfer's end", timeout: timeout) { outcome.value }.get()
    }
}
