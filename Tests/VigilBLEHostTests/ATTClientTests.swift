import Testing
import VigilBLE
import VigilBLESimulation
@testable import VigilBLEHost

/// ATT client behaviour on virtual time (Core spec Vol 3 Part F 3.3: one outstanding request,
/// 30 s transaction timeout; 3.4: PDU layouts).
@Suite struct ATTClientTests {
    final class Wire {
        var sent: [[UInt8]] = []
    }

    func makeClient() -> (ATTClient, Wire, VirtualTimeScheduler) {
        let scheduler = VirtualTimeScheduler()
        let wire = Wire()
        let client = ATTClient(scheduler: scheduler) { wire.sent.append($0) }
        return (client, wire, scheduler)
    }

    @Test func onlyOneRequestIsOutstandingAndTheNextGoesWhenItIsAnswered() {
        let (client, wire, _) = makeClient()
        var results: [[UInt8]] = []
        client.read(handle: 0x0003) { results.append((try? $0.get()) ?? []) }
        client.read(handle: 0x0005) { results.append((try? $0.get()) ?? []) }
        #expect(wire.sent == [[0x0A, 0x03, 0x00]])
        #expect(client.queuedRequestCount == 1)
        client.receive([0x0B, 0xAA])
        #expect(wire.sent == [[0x0A, 0x03, 0x00], [0x0A, 0x05, 0x00]])
        client.receive([0x0B, 0xBB, 0xCC])
        #expect(results == [[0xAA], [0xBB, 0xCC]])
        #expect(!client.isBusy)
    }

    @Test func exchangeMTUTakesTheSmallerOfBothSides() {
        let (client, wire, _) = makeClient()
        var agreed: Int?
        client.exchangeMTU(247) { agreed = try? $0.get() }
        #expect(wire.sent == [[0x02, 0xF7, 0x00]])
        client.receive([0x03, 0x9E, 0x00]) // server: 158
        #expect(agreed == 158)
        #expect(client.mtu == 158)
    }

    @Test func anErrorResponseBecomesATypedError() {
        let (client, _, _) = makeClient()
        var outcome: Result<Void, ATTClientError>?
        client.write(handle: 0x002A, value: [1]) { outcome = $0 }
        client.receive([0x01, 0x12, 0x2A, 0x00, 0x03])
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure")
            return
        }
        #expect(error == .attribute(.writeNotPermitted, handle: 0x2A, request: 0x12))
        #expect(error.code == 3)
        #expect(ATTErrorCode(rawValue: 0x85) == .application(0x85))
        #expect(ATTErrorCode(rawValue: 0xFD) == .profile(0xFD))
        #expect(ATTErrorCode(rawValue: 0x0A).rawValue == 0x0A)
    }

    @Test func anErrorResponseForAnotherRequestIsIgnored() {
        let (client, _, _) = makeClient()
        var outcome: Result<[UInt8], ATTClientError>?
        client.read(handle: 1) { outcome = $0 }
        client.receive([0x01, 0x12, 0x01, 0x00, 0x03])
        #expect(outcome == nil)
        #expect(client.unexpectedPDUs == 1)
    }

    @Test func theTransactionTimeoutFailsTheRequestClosesTheBearerAndAsksToDropTheLink() {
        let (client, wire, scheduler) = makeClient()
        var first: Result<[UInt8], ATTClientError>?
        var second: Result<[UInt8], ATTClientError>?
        var dropped = false
        client.onTimeout = { dropped = true }
        client.read(handle: 1) { first = $0 }
        client.read(handle: 2) { second = $0 }
        scheduler.advanceTime(byMilliseconds: 29_999)
        #expect(first == nil && !dropped)
        scheduler.advanceTime(byMilliseconds: 1)
        #expect(first == .failure(.timeout(request: 0x0A)))
        #expect(second == .failure(.disconnected))
        #expect(dropped)
        // No request may follow on a timed-out bearer, and a late response changes nothing.
        var third: Result<[UInt8], ATTClientError>?
        client.read(handle: 3) { third = $0 }
        _ = scheduler.runUntilIdle()
        #expect(third == .failure(.disconnected))
        client.receive([0x0B, 0x01])
        #expect(wire.sent == [[0x0A, 0x01, 0x00]])
        #expect(!client.writeCommand(handle: 1, value: [1]))
    }

    @Test func indicationsAreConfirmedAndNotificationsAreNot() {
        let (client, wire, _) = makeClient()
        var values: [(UInt16, [UInt8])] = []
        client.onNotification = { values.append(($0, $1)) }
        client.onIndication = { values.append(($0, $1)) }
        client.receive([0x1B, 0x10, 0x00, 0x01, 0x02])
        client.receive([0x1D, 0x12, 0x00, 0x03])
        #expect(values.map(\.0) == [0x10, 0x12])
        #expect(values.map(\.1) == [[1, 2], [3]])
        #expect(wire.sent == [[0x1E]])
    }

    @Test func thePeersOwnRequestsAreAnswered() {
        let (client, wire, _) = makeClient()
        client.receive([0x02, 0x00, 0x02]) // peer offers 512
        client.receive([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]) // discovers our services
        client.receive([0x0A, 0x01, 0x00])
        #expect(wire.sent == [[0x03, 0xF7, 0x00], [0x01, 0x10, 0x01, 0x00, 0x0A], [0x01, 0x0A, 0x01, 0x00, 0x06]])
        #expect(client.mtu == 247)
    }

    @Test func malformedResponsesAreTypedErrors() {
        let (client, _, _) = makeClient()
        var outcome: Result<[(handle: UInt16, value: [UInt8])], ATTClientError>?
        client.readByType(start: 1, end: 0xFFFF, type: "2803") { outcome = $0 }
        client.receive([0x09, 0x07, 0x02, 0x00, 0x10]) // entry length 7, 3 bytes
        guard case .failure(.malformedResponse) = outcome else {
            Issue.record("expected a malformed response, got \(String(describing: outcome))")
            return
        }
        var info: Result<[(handle: UInt16, type: BLEUUID)], ATTClientError>?
        client.findInformation(start: 1, end: 5) { info = $0 }
        client.receive([0x05, 0x03, 0x01, 0x00])
        guard case .failure(.malformedResponse) = info else {
            Issue.record("expected a malformed response")
            return
        }
    }

    @Test func closingFailsOutstandingAndQueuedRequests() {
        let (client, _, scheduler) = makeClient()
        var outcomes: [Result<[UInt8], ATTClientError>] = []
        client.read(handle: 1) { outcomes.append($0) }
        client.read(handle: 2) { outcomes.append($0) }
        client.close()
        _ = scheduler.runUntilIdle()
        #expect(outcomes == [.failure(.disconnected), .failure(.disconnected)])
        #expect(scheduler.pendingTaskCount == 0)
    }
}
