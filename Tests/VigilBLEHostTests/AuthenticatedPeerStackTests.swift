import Foundation
import VigilBLE
import VigilBLEHost
import VigilBLESimulation
import VigilCore
import VigilTestSupport
import XCTest

/// Authenticated `0xAA55` commands (docs/ble-protocol.md §4) over the real stack: `PaymentTerminal`
/// and `FramedTerminalAdapter` on ``HostTransport`` → HCI → Bumble's controllers → the Python
/// terminal peer in authenticated mode, whose command guard is `vigil_auth.py` (an implementation
/// independent of VigilBLE's). A man in the middle inside the peer (`vigil_relay.py`) attacks the
/// frames as they arrive over the link, before the guard sees them.
///
/// The session is the simulator's (`TerminalSessionSimulation`): the connected sequence with the
/// authenticated key update, then the IC parameters and the card transaction back to back, then
/// the second authorization once the transaction succeeded. What the terminal acted on is read
/// from the peer's `command` events, its refusals from `refused` events, the relay's forgeries
/// from `forged` events — "not acted on" is checked, not assumed.
final class AuthenticatedPeerStackTests: XCTestCase {
    func testCleanAuthenticatedSessionCompletesWithEveryLaterCommandSealed() throws {
        let (session, stack) = try runSession(attack: nil)
        let peer = stack.peer
        XCTAssertNoThrow(try session.icParameters?.get())
        XCTAssertEqual(try session.transaction?.get().maskedPAN, "476173******0010")
        XCTAssertEqual(try session.secondAuthorization?.get().approved, true)
        XCTAssertTrue(session.authenticated, "the adapter switched to authenticated commands after the key update")
        let commands = peer.events.filter { $0.name == "command" }
        XCTAssertEqual(commands.map { $0.string("name") ?? "" },
                       ["open", "deviceInfo", "serialNumber", "traceNumber", "updateWorkKeys",
                        "updateICParameters", "startCardTransaction", "secondAuthorization"])
        // The chain is plain; every command after the key update carried counters 1, 2, 3 that verified.
        XCTAssertEqual(commands.map { $0.int("counter") }, [nil, nil, nil, nil, nil, 1, 2, 3])
        XCTAssertEqual(commands.first { $0.string("name") == "startCardTransaction" }?.string("argument"), Self.transactionBody,
                       "the terminal acted on the amount the phone sent")
        XCTAssertNotNil(peer.events.first { $0.name == "session-key" })
        XCTAssertEqual(peer.events.filter { $0.name == "refused" || $0.name == "forged" }.count, 0)
    }

    func testFlippedAmountWithFixedChecksumIsRefusedForItsTagAndNeverActedOn() throws {
        let (session, stack) = try runSession(attack: .flip)
        let peer = stack.peer
        guard case .failure(let error)? = session.transaction else { return XCTFail("the forged transaction was not refused: \(String(describing: session.transaction))") }
        XCTAssertEqual(error, .authenticationRejected(command: "startCardTransaction", .badTag))
        let forged = peer.events.filter { $0.name == "forged" }
        XCTAssertEqual(forged.map { $0.int("command") }, [0x20], "the relay forged exactly the card transaction")
        let refused = peer.events.filter { $0.name == "refused" }
        XCTAssertEqual(refused.map { $0.int("status") }, [0xA1], "refused once, for its tag")
        XCTAssertEqual(refused.first?.int("counter"), 2)
        XCTAssertFalse(peer.events.contains { $0.name == "command" && $0.string("name") == "startCardTransaction" },
                       "the terminal never started the forged transaction")
        XCTAssertNoThrow(try session.icParameters?.get(), "the parameters sent beside it were untouched and loaded")
        XCTAssertNil(session.secondAuthorization, "nothing followed from the refused transaction")
    }

    func testReplayedTransactionIsRefusedAsStaleAndActedOnOnce() throws {
        let (session, stack) = try runSession(attack: .replay)
        let peer = stack.peer
        XCTAssertEqual(try session.transaction?.get().maskedPAN, "476173******0010")
        XCTAssertEqual(try session.secondAuthorization?.get().approved, true, "the session completes")
        XCTAssertEqual(peer.events.filter { $0.name == "forged" }.map { $0.int("command") }, [0x20])
        let refused = try peer.waitForEvent("refused")
        XCTAssertEqual(refused.int("command"), 0x20)
        XCTAssertEqual(refused.int("status"), 0xA2, "a replayed counter is stale")
        XCTAssertEqual(refused.int("counter"), 2)
        let transactions = peer.events.filter { $0.name == "command" && $0.string("name") == "startCardTransaction" }
        XCTAssertEqual(transactions.count, 1, "the terminal ran the transaction exactly once")
    }

    func testReorderedCommandsTheLateOneIsRefusedAsStaleAndNeverActedOn() throws {
        let (session, stack) = try runSession(attack: .reorder)
        let peer = stack.peer
        guard case .failure(let error)? = session.icParameters else { return XCTFail("the late parameters were not refused: \(String(describing: session.icParameters))") }
        XCTAssertEqual(error, .authenticationRejected(command: "updateICParameters", .staleCounter(received: 0, lastAccepted: 0)))
        XCTAssertEqual(try session.transaction?.get().maskedPAN, "476173******0010", "the transaction that overtook them completes")
        XCTAssertEqual(peer.events.filter { $0.name == "forged" }.map { $0.int("command") }, [0x11])
        let refused = peer.events.filter { $0.name == "refused" }
        XCTAssertEqual(refused.map { $0.int("command") }, [0x11])
        XCTAssertEqual(refused.map { $0.int("status") }, [0xA2])
        XCTAssertEqual(refused.map { $0.int("counter") }, [1], "the parameters' counter 1 arrived after the transaction's 2")
        let names = peer.events.filter { $0.name == "command" }.map { $0.string("name") ?? "" }
        XCTAssertFalse(names.contains("updateICParameters"), "the terminal never loaded the late parameters: \(names)")
        XCTAssertEqual(names.suffix(2), ["startCardTransaction", "secondAuthorization"])
    }

    func testSameFlipAgainstATerminalWithoutAuthenticationIsActedOn() throws {
        // Why the tags exist: with a plain key update the relay's changed amount (CRC fixed) is
        // what the terminal charges. No counter in a plain frame: the amount's low byte is byte 7.
        let stack = try PeerStack(.init(advertisement: .framedTerminal, attack: .flip, flipOffset: 7))
        let keys = WorkKeys(pinKey: Array(0..<16), macKey: Array(16..<32), dataKey: Array(32..<48))
        let connected = Outcome<Result<PaymentTerminal.Identity, PaymentTerminalError>>()
        let terminal = stack.onQueue {
            PaymentTerminal(connection: stack.connection) { _, answer in answer(.success(.approvedWithKeyUpdate(keys, expectedCheckValues: nil))) }
        }
        stack.onQueue { terminal.connect { connected.set($0) } }
        _ = try stack.waitFor("the terminal's connected status", timeout: 60) { connected.value }.get()
        let adapter = try XCTUnwrap(stack.onQueue { terminal.adapter })
        let transaction = Outcome<Result<CardTransactionResult, DeviceError>>()
        stack.onQueue { adapter.startCardTransaction(TerminalSessionSimulation.transaction, trace: nil) { transaction.set($0) } }
        XCTAssertNoThrow(try stack.waitFor("the transaction's end", timeout: 30) { transaction.value }.get(), "nothing noticed")
        XCTAssertEqual(stack.peer.events.filter { $0.name == "forged" }.count, 1)
        let acted = stack.peer.events.filter { $0.name == "command" && $0.string("name") == "startCardTransaction" }
        XCTAssertEqual(acted.compactMap { $0.string("argument") }, ["00000000000004e303d2003c"],
                       "the terminal started a transaction for 12.51, not the 12.50 the phone sent")
        stack.onQueue { terminal.disconnect() }
    }

    // MARK: The session

    /// What the phone got back.
    private struct Session {
        var authenticated = false
        var icParameters: Result<Void, DeviceError>?
        var transaction: Result<CardTransactionResult, DeviceError>?
        var secondAuthorization: Result<SecondAuthorizationResult, DeviceError>?
        var finished = false
    }

    /// The transaction's body on the wire: amount 12.50 (u64), EUR 978 (u16), sale, 60 s.
    private static let transactionBody = "00000000000004e203d2003c"

    /// Connects with the authenticated key update through a fresh authenticating peer (mounting
    /// `attack`), then runs the commands; returns the phone's results and the stack (the peer lives as long as it).
    private func runSession(attack: BumbleTerminalPeer.Attack?) throws -> (Session, PeerStack) {
        var generator = SeededGenerator(seed: 22)
        func key() -> [UInt8] { (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) } }
        let masterKey = key()
        let stack = try PeerStack(.init(advertisement: .framedTerminal, authenticationMasterKey: masterKey, attack: attack))
        // The payment server's side: clear work keys, their wrapped form for the terminal, the
        // check values it expects, and the MAC key in clear for the app.
        let clear = WorkKeys(pinKey: key(), macKey: key(), dataKey: key())
        let loaded = WorkKeys(pinKey: AuthenticatingTerminalPeripheral.wrapKey(clear.pinKey, masterKey: masterKey),
                              macKey: AuthenticatingTerminalPeripheral.wrapKey(clear.macKey, masterKey: masterKey),
                              dataKey: AuthenticatingTerminalPeripheral.wrapKey(clear.dataKey, masterKey: masterKey))
        let expected = KeyCheckValues(pin: SimulatedTerminalBehavior.checkValue(loaded.pinKey),
                                      mac: SimulatedTerminalBehavior.checkValue(loaded.macKey),
                                      data: SimulatedTerminalBehavior.checkValue(loaded.dataKey))
        let verdict = ServerVerdict.approvedWithAuthenticatedKeyUpdate(loaded, expectedCheckValues: expected, macKey: clear.macKey)
        let connected = Outcome<Result<PaymentTerminal.Identity, PaymentTerminalError>>()
        let terminal = stack.onQueue { PaymentTerminal(connection: stack.connection) { _, answer in answer(.success(verdict)) } }
        stack.onQueue { terminal.connect { connected.set($0) } }
        let identity = try stack.waitFor("the terminal's connected status", timeout: 60) { connected.value }.get()
        XCTAssertEqual(identity.vendor, "framed-aa55")
        guard let adapter = stack.onQueue({ terminal.adapter as? FramedTerminalAdapter }) else {
            XCTFail("no 0xAA55 adapter")
            return (Session(), stack)
        }
        let session = Outcome<Session>()
        session.set(Session(authenticated: stack.onQueue { adapter.isAuthenticated }))
        stack.onQueue {
            // Back to back, as the app sends them: what lets a relay reorder them.
            adapter.updateICParameters(TerminalSessionSimulation.icParameters, trace: nil) { result in
                session.update { $0?.icParameters = result }
            }
            adapter.startCardTransaction(TerminalSessionSimulation.transaction, trace: nil) { result in
                session.update { $0?.transaction = result }
                guard case .success = result else { return session.update { $0?.finished = true } }
                adapter.secondAuthorization([0x30, 0x30], trace: nil) { result in
                    session.update {
                        $0?.secondAuthorization = result
                        $0?.finished = true
                    }
                }
            }
        }
        let outcome = try stack.waitFor("the session's commands", timeout: 60) { () -> Session? in
            guard let value = session.value, value.finished, value.icParameters != nil else { return nil }
            return value
        }
        stack.onQueue { terminal.disconnect() }
        return (outcome, stack)
    }
}
