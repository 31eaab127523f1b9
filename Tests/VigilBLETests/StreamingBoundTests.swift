import Testing
import VigilBLE

@Suite("Streaming bound (the physical model)")
struct StreamingBoundTests {
    @Test("MTU 247, 2M PHY, 15 ms, 5 packets/event: 5 × 244 B per 15 ms = 81,333 B/s, one fragment per write")
    func iPhoneBest() {
        let bound = StreamingBound(LinkParameters(phy: .twoM, attMTU: 247, connectionIntervalMs: 15, packetsPerEvent: 5))
        #expect(bound.dataPacketMicroseconds == (2 + 4 + 2 + 251 + 3) * 4)
        #expect(bound.slotMicroseconds == 1048 + 150 + 44 + 150)
        #expect(bound.fragmentsPerWrite == 1 && bound.packetsPerEvent == 5)
        #expect(abs(bound.bytesPerSecond - 5 * 244 / 0.015) < 1e-6)
    }

    @Test("MTU 23, 1M PHY, 30 ms: 5 × 20 B per 30 ms = 3,333 B/s")
    func legacy() {
        let bound = StreamingBound(LinkParameters(phy: .oneM, attMTU: 23, connectionIntervalMs: 30, packetsPerEvent: 5))
        #expect(bound.dataPacketMicroseconds == (1 + 4 + 2 + 27 + 3) * 8)
        #expect(abs(bound.bytesPerSecond - 5 * 20 / 0.030) < 1e-6)
    }

    @Test("a data length shorter than the write fragments it; airtime caps packets per event at short intervals")
    func fragmentationAndAirtime() {
        let fragmented = StreamingBound(LinkParameters(phy: .twoM, dataLength: 27, attMTU: 247, connectionIntervalMs: 15, packetsPerEvent: 5))
        #expect(fragmented.fragmentsPerWrite == 10)
        #expect(abs(fragmented.bytesPerSecond - 5 * 244 / (10 * 0.015)) < 1e-6)
        let crowded = StreamingBound(LinkParameters(phy: .oneM, dataLength: 251, attMTU: 247, connectionIntervalMs: 7.5, packetsPerEvent: 20))
        // (1+4+2+251+3)·8 = 2088 µs + 150 + 80 + 150 = 2468 µs per slot: 3 fit in 7.5 ms.
        #expect(crowded.packetsPerEvent == 3)
    }

    @Test("out-of-range parameters are refused with the field named")
    func validation() {
        #expect(throws: LinkParametersError.outOfRange(field: "dataLength", value: 300, range: "27…251")) {
            try LinkParameters(dataLength: 300).validated()
        }
        #expect(throws: LinkParametersError.self) { try LinkParameters(connectionIntervalMs: 5).validated() }
    }
}
