import Testing
import VigilBLE
import VigilBLESimulation
@testable import VigilBLEHost

/// GATT procedures (Core spec Vol 3 Part G 4.4–4.12) against ``AttributeServer`` at the
/// default MTU of 23, so every procedure needs several rounds.
@Suite struct GATTClientTests {
    let scheduler = VirtualTimeScheduler()
    let server = AttributeServer()
    let gatt: GATTClient

    init() {
        let server = self.server
        let scheduler = self.scheduler
        var client: ATTClient!
        client = ATTClient(scheduler: scheduler) { pdu in
            // The server answers on the scheduler, as a peer across a link would.
            scheduler.execute(label: "server") { server.receive(pdu) }
        }
        server.reply = { pdu in scheduler.execute(label: "client") { client.receive(pdu) } }
        gatt = GATTClient(att: client)
        server.addService("1800", start: 1, characteristics: [("2A00", 0x02, Array("Vigil".utf8), false)])
        server.addService("7A1C0001-5A5E-4C2B-9E3A-1C2D3E4F5A6B", start: 0x10, characteristics: [
            ("7A1C0002-5A5E-4C2B-9E3A-1C2D3E4F5A6B", 0x0C, [], false),
            ("7A1C0003-5A5E-4C2B-9E3A-1C2D3E4F5A6B", 0x10, [], true),
            ("7A1C0004-5A5E-4C2B-9E3A-1C2D3E4F5A6B", 0x02, (0..<100).map { UInt8($0) }, false),
        ])
        server.addService("180A", start: 0x30, characteristics: [("2A29", 0x02, [1], false), ("2A24", 0x02, [2], false)])
    }

    private func run() { _ = scheduler.runUntilIdle() }

    @Test func discoversEveryPrimaryServiceAcrossSeveralResponses() throws {
        var result: Result<[GATTService], ATTClientError>?
        gatt.discoverPrimaryServices { result = $0 }
        run()
        let services = try #require(try result?.get())
        #expect(services.map(\.uuid) == ["1800", "7A1C0001-5A5E-4C2B-9E3A-1C2D3E4F5A6B", "180A"])
        #expect(services.map(\.start) == [1, 0x10, 0x30])
        #expect(services[1].end == 0x2F)
    }

    @Test func discoversCharacteristicsWithRangesAndTheirConfigurationDescriptor() throws {
        var services: [GATTService] = []
        gatt.discoverPrimaryServices { services = (try? $0.get()) ?? [] }
        run()
        var characteristics: [GATTCharacteristic] = []
        gatt.discoverCharacteristics(of: services[1]) { characteristics = (try? $0.get()) ?? [] }
        run()
        #expect(characteristics.map(\.valueHandle) == [0x12, 0x14, 0x17])
        #expect(characteristics[1].properties.contains(.notify))
        #expect(characteristics[1].endHandle == 0x15)
        var cccd: UInt16??
        gatt.discoverConfigurationDescriptor(of: characteristics[1]) { cccd = try? $0.get() }
        run()
        #expect(cccd == .some(0x15))
        var none: UInt16??
        gatt.discoverConfigurationDescriptor(of: characteristics[0]) { none = try? $0.get() }
        run()
        #expect(none == .some(nil))
        var done = false
        gatt.configure(descriptor: 0x15, notify: true, indicate: false) { done = (try? $0.get()) != nil }
        run()
        #expect(done && server.value(0x15) == [0x01, 0x00])
    }

    @Test func aLongReadUsesReadBlobUntilAShortAnswer() {
        var value: [UInt8]?
        gatt.readLong(handle: 0x17) { value = try? $0.get() }
        run()
        #expect(value == (0..<100).map { UInt8($0) })
        #expect(server.requests.filter { $0 == 0x0C }.count == 4) // 22 + 3 × 22 + 12 bytes
    }

    @Test func aLongWriteGoesAsPrepareAndExecute() {
        let value = (0..<60).map { UInt8($0 + 1) }
        var ok = false
        gatt.write(handle: 0x12, value: value) { ok = (try? $0.get()) != nil }
        run()
        #expect(ok)
        #expect(server.value(0x12) == value)
        #expect(server.requests.filter { $0 == 0x16 }.count == 4) // 18-byte parts
        #expect(server.requests.last == 0x18)
    }

    @Test func aPrepareWriteEchoThatDiffersCancelsTheWrite() {
        server.corruptPrepareEcho = true
        var outcome: Result<Void, ATTClientError>?
        gatt.write(handle: 0x12, value: [UInt8](repeating: 7, count: 30)) { outcome = $0 }
        run()
        guard case .failure(.malformedResponse) = outcome else {
            Issue.record("expected the write to fail")
            return
        }
        #expect(server.value(0x12) == [])
    }

    @Test func aShortWriteIsOneWriteRequest() {
        var ok = false
        gatt.write(handle: 0x12, value: [1, 2, 3]) { ok = (try? $0.get()) != nil }
        run()
        #expect(ok && server.requests == [0x12])
    }
}
