import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Collects a child's standard output line by line while it runs.
private final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private let ready = DispatchSemaphore(value: 0)
    private var sawReady = false
    private let done = DispatchSemaphore(value: 0)

    func start(_ handle: FileHandle) {
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                self.lock.lock()
                self.buffer.append(chunk)
                let signal = !self.sawReady && String(decoding: self.buffer, as: UTF8.self).contains("ready\n")
                if signal { self.sawReady = true }
                self.lock.unlock()
                if signal { self.ready.signal() }
            }
            self.done.signal()
        }
    }

    func waitForReady(seconds: Double) -> Bool { ready.wait(timeout: .now() + seconds) == .success }
    func waitForEnd() { done.wait() }

    var lines: [String] {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

@Suite("Event store: crash consistency under SIGKILL")
struct CrashConsistencyTests {
    @Test("after SIGKILL at 20 random moments the store holds only valid, unique records and every fsynced event")
    func killedWhileWriting() throws {
        let sample = try BuildProducts.executable("vigil-sample")
        let directory = try TemporaryDirectory(prefix: "store-crash")
        var generator = SeededGenerator(seed: 0x5EED_0005)
        var totalDurable = 0
        var totalRecovered = 0
        for round in 0..<20 {
            let base = round * 1_000_000
            let process = Process()
            process.executableURL = sample
            process.arguments = ["store-stress", "--dir", directory.url.path, "--seed", "\(round + 1)", "--base", "\(base)"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let collector = LineCollector()
            collector.start(output.fileHandleForReading)
            try process.run()
            let isReady = collector.waitForReady(seconds: 30)
            if !isReady { kill(process.processIdentifier, SIGKILL) }
            try #require(isReady, "round \(round): the child never became ready")
            usleep(useconds_t(UInt32.random(in: 5_000...150_000, using: &generator)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            collector.waitForEnd()
            #expect(process.terminationReason == .uncaughtSignal)

            // Everything up to the last reported durable point must be on disk.
            var durableThrough = -1
            for line in collector.lines {
                let parts = line.split(separator: " ")
                if parts.count == 2, parts[0] == "durable" || parts[0] == "flushed", let number = Int(parts[1]) {
                    durableThrough = max(durableThrough, number)
                }
            }

            let store = EventStore(directory: directory.url)
            let records = store.nextBatch(maxEvents: Int.max, maxBytes: Int.max)
            var ids: [UUID] = []
            for record in records {
                let event = try #require(try? EventJSON.decode(record.payload), "round \(round): a record is not a valid event")
                ids.append(event.id)
            }
            #expect(Set(ids).count == ids.count, "round \(round): duplicate records")
            let present = Set(ids)
            let expected = (0...max(durableThrough, 0)).prefix(durableThrough + 1).map { number in
                UUID(uuidString: String(format: "00000000-0000-4000-8000-%012llX", UInt64(base + number)))!
            }
            let missing = expected.filter { !present.contains($0) }
            #expect(missing.isEmpty, "round \(round): \(missing.count) fsynced events missing (durable through \(durableThrough))")
            // Records from this round only: earlier rounds were acknowledged (deleted) below.
            let range = UInt64(base)..<UInt64(base + 1_000_000)
            #expect(ids.allSatisfy { id in
                let text = id.uuidString
                return UInt64(text.suffix(12), radix: 16).map(range.contains) ?? false
            }, "round \(round): a record from an earlier round came back")
            totalDurable += durableThrough + 1
            totalRecovered += records.count
            #expect(store.acknowledge(records.map(\.handle)) == records.count)
            store.close()
        }
        print("crash-consistency: durable \(totalDurable), recovered \(totalRecovered)")
        // The rounds did real work: events were written and made durable before the kills.
        #expect(totalDurable > 0)
        #expect(totalRecovered >= totalDurable)
    }
}
