import Testing
import VigilBLE
import VigilCore

/// Inputs the fuzz targets (Fuzz/, docs/fuzzing.md) found, pinned so the fixes stay.
@Suite("Inputs found by fuzzing (VigilBLE)")
struct FuzzRegressionTests {
    private func start(totalBytes: UInt64, chunkSize: UInt16) -> TransferStart {
        TransferStart(mode: .window, transferId: 7, totalBytes: totalBytes, chunkSize: chunkSize, window: 8,
                      sha256: [UInt8](repeating: 0, count: 32))
    }

    @Test("the chunk count of a START announcing close to 2^64 bytes is computed without overflow")
    func chunkCountNearUInt64Max() {
        #expect(start(totalBytes: .max, chunkSize: 1).chunkCount == .max)
        #expect(start(totalBytes: .max, chunkSize: 2).chunkCount == 1 << 63)
        #expect(start(totalBytes: .max - 1, chunkSize: 0xFFFF).chunkCount == (UInt64.max - 1) / 0xFFFF + 1)
        #expect(start(totalBytes: 0, chunkSize: 9).chunkCount == 0)
        #expect(start(totalBytes: 18, chunkSize: 9).chunkCount == 2)
    }

    @Test("a receiver without a size limit refuses a START of 2^64 - 1 bytes instead of trapping")
    func unlimitedReceiverRefusesHugeStart() throws {
        let receiver = TransferReceiver(configuration: TransferReceiverConfiguration(maxTransferBytes: .max))
        let packet = TransferPacket.start(start(totalBytes: .max, chunkSize: 1)).encoded()
        let actions = receiver.handle(packet, at: MonotonicInstant(nanoseconds: 0))
        #expect(actions.contains(.rejected(.invalidStart(field: "chunkCount", value: .max))))
        #expect(receiver.progress == nil)
    }
}
