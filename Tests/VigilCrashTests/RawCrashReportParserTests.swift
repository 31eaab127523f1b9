import CZlib
import CVigilRuntime
import Foundation
import Testing
import VigilCore
import VigilRuntime
import VigilTestSupport

@Suite("Raw crash report format: writer, checksum, parser and bad input")
struct RawCrashReportParserTests {
    let parser = RawCrashReportParser()

    @Test("a report written by the handler's writer parses back to the same values")
    func roundTrip() throws {
        let synthetic = SyntheticCrashReport()
        let report = try parser.parse(try synthetic.bytes())
        #expect(report.signal == SIGSEGV)
        #expect(report.code == 1)
        #expect(report.faultAddress == 0x10)
        #expect(report.processID == 4242)
        #expect(report.architecture == "x86_64" && report.wordSize == 8)
        #expect(report.time == Date(timeIntervalSince1970: 1_795_000_000.5))
        #expect(report.crashedThread?.frames == synthetic.crashedFrames)
        #expect(report.crashedThread?.name == "main")
        #expect(report.threads.count == 2)
        #expect(report.threads[1].name == "worker" && report.threads[1].source == .parked)
        #expect(report.metadata == synthetic.metadata)
        #expect(report.message?.kind == "swift" && report.message?.text == "Fatal error: synthetic")
        #expect(report.images.map(\.buildID) == ["abcdef01", ""])
        #expect(report.images.map(\.path) == ["/opt/app/Shop", "/usr/lib/libc.so.6"])
        #expect(report.lateImages.map(\.path) == ["/opt/app/Plugin.so"])
        #expect(report.registers.map(\.name) == ["rip", "rsp", "rbp"])
        #expect(report.threadSummary?.parked == 1)
        #expect(report.timing?.end == synthetic.monotonic + 40)
        #expect(report.handlerFault == nil)
    }

    @Test("the end marker's checksum is zlib's CRC-32 of every byte before it", arguments: [0, 1, 7, 64, 1000, 65_537])
    func checksumIsZlibCRC32(length: Int) {
        var generator = SeededGenerator(seed: UInt64(length) &+ 3)
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let zlib = bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        #expect(CrashHandler.crc32(bytes) == zlib)
        // Continuing a CRC over a split gives the same value.
        let split = length / 3
        let first = CrashHandler.crc32(Array(bytes[..<split]))
        #expect(CrashHandler.crc32(Array(bytes[split...]), continuing: first) == zlib)
    }

    @Test("a thread whose frames do not fit the writer's free space is cut and flagged truncated; the report stays valid")
    func longThreadRecordIsCutNotTorn() throws {
        // 12-digit addresses take 13 bytes each: 3,000 frames fill about 39 KB, 4,096 about 53 KB,
        // and after two records of 3,000 the 128 KB buffer has less than 53 KB left unflushed.
        func frames(_ count: Int) -> [UInt64] { (0..<count).map { 0x7f00_0000_0000 + UInt64($0) * 16 } }
        var synthetic = SyntheticCrashReport()
        synthetic.otherThreads = [(101, "a", frames(3000)), (102, "b", frames(3000)), (103, "c", frames(4096))]
        let report = try RawCrashReportParser().parse(try synthetic.bytes())
        let cut = try #require(report.threads.first { $0.id == 103 })
        #expect(cut.frames.count > 2000 && cut.frames.count < 4096)
        #expect(cut.frames == Array(frames(4096).prefix(cut.frames.count)), "the innermost frames are kept")
        #expect(cut.walkFlags & UInt32(VIGIL_WALK_TRUNCATED) != 0)
        #expect(report.threads.first { $0.id == 102 }?.frames.count == 3000)
    }

    @Test("no prefix of a valid report is ever accepted: a torn report is recognised")
    func everyTruncationIsRejected() throws {
        let bytes = try SyntheticCrashReport().bytes()
        for length in 0..<bytes.count {
            do {
                _ = try parser.parse(bytes.prefix(length))
                Issue.record("a report cut at \(length) of \(bytes.count) bytes was accepted")
            } catch {
                #expect([.empty, .foreign, .truncated, .checksumMismatch, .lengthMismatch, .malformed].contains(error.reason),
                        "cut at \(length): \(error)")
            }
        }
    }

    @Test("no single corrupted byte is ever accepted")
    func everyByteFlipIsRejected() throws {
        let bytes = try SyntheticCrashReport().bytes()
        for index in 0..<bytes.count {
            var corrupted = bytes
            corrupted[index] ^= 0x5A
            do {
                _ = try parser.parse(corrupted)
                Issue.record("a report with byte \(index) corrupted was accepted")
            } catch {
                #expect(error.reason != .tooLarge && error.reason != .unreadable)
            }
        }
    }

    @Test("a report followed by the zeros of an unused disk reservation is valid")
    func trailingZeros() throws {
        let bytes = try SyntheticCrashReport().bytes()
        let report = try parser.parse(bytes + Data(count: 4096))
        #expect(report.signal == SIGSEGV)
    }

    @Test("empty and all-zero files are clean runs, not errors")
    func empty() {
        for input in [Data(), Data(count: 512 * 1024)] {
            #expect(throws: RawCrashReportError(.empty, "no report (the process did not crash)")) { try parser.parse(input) }
        }
    }

    @Test("foreign files are recognised as foreign", arguments: [
        "hello world\n", "{\"schema\":1}\n", "process 1 1\nsignal 11 1 10 0\nmeta 2:{}\n", "\u{7F}ELF\u{2}\u{1}\u{1}", "VIGILCRASH", "vigilcrash 1 x86_64 8\n", "VIGILCRASHX 1\n",
    ])
    func foreign(text: String) {
        do {
            _ = try parser.parse(Data(text.utf8))
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.reason == .foreign || error.reason == .malformed, "\(error)")
        }
    }

    @Test("a later format version is refused as unsupported, not misread")
    func unsupportedVersion() {
        let body = Data("VIGILCRASH 2 x86_64 8\nsomething new\n".utf8)
        #expect(throws: RawCrashReportError.self) { try parser.parse(SyntheticCrashReport.signed(body)) }
        do { _ = try parser.parse(SyntheticCrashReport.signed(body)) } catch { #expect(error.reason == .unsupportedVersion) }
    }

    @Test("an end marker that stands at the wrong length is refused")
    func wrongLength() throws {
        var bytes = try SyntheticCrashReport().bytes()
        // Insert a byte before the end marker and keep its checksum and length: both now lie.
        let markerStart = bytes.lastIndex(of: 0x0A, before: bytes.count - 1).map { $0 + 1 } ?? 0
        bytes.insert(0x0A, at: markerStart)
        do { _ = try parser.parse(bytes); Issue.record("accepted") } catch { #expect(error.reason == .lengthMismatch) }
    }

    @Test("records that break the grammar under a valid checksum are malformed, never a trap", arguments: [
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nthread 1 1 1 0 1 abc 0:\n",           // no meta
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\n",                          // no crashed thread
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 0 1 abc 0:\nthread 2 1 1 0 1 abc 0:\n",
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 99:{}\nthread 1 1 1 0 1 abc 0:\n", // blob past the end
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 0 3 abc 0:\n",  // fewer frames than said
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 0 1 12345678901234567 0:\n",
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 9 1 abc 0:\n",  // unknown source
        "VIGILCRASH 1 x86_64 8\nprocess 99999999999 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 0 1 abc 0:\n",
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 0 99999999 abc 0:\n",
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 0 1 abc 0:\nimage 1 2 3 4 xyz 1:a\n",
        "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 0 1 abc 0:\nimage 1 2 3 4 \u{FF10}\u{FF11} 1:a\n",
        "VIGILCRASH 1 x86_64 8\nprocess  1 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 0 1 abc 0:\n",
        "VIGILCRASH 1 x86_64 8\nVIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\nthread 1 1 1 0 1 abc 0:\n",
    ])
    func malformed(body: String) {
        do {
            _ = try parser.parse(SyntheticCrashReport.signed(Data(body.utf8)))
            Issue.record("accepted \(body.debugDescription)")
        } catch {
            #expect(error.reason == .malformed, "\(error)")
        }
    }

    @Test("a minimal report with an unknown record (a later minor revision) still parses")
    func unknownRecordSkipped() throws {
        let body = "VIGILCRASH 1 x86_64 8\nprocess 1 1\nsignal 11 1 10 0\nmeta 2:{}\nnew-thing 1 2 3\nthread 1 1 1 0 1 abc 4:main\n"
        let report = try parser.parse(SyntheticCrashReport.signed(Data(body.utf8)))
        #expect(report.crashedThread?.frames == [0xabc])
    }

    @Test("seeded random mutations of a valid report, re-signed, either parse or fail as malformed; nothing traps")
    func mutationsNeverTrap() throws {
        let original = try SyntheticCrashReport().bytes()
        let markerStart = (original.lastIndex(of: 0x0A, before: original.count - 1) ?? 0) + 1
        let body = original.prefix(markerStart)
        var generator = SeededGenerator(seed: 2026)
        let alphabet = Array("0123456789abcdef :\n-xVIGLCRASHthreadimagemeta".utf8)
        for _ in 0..<1500 {
            var mutated = [UInt8](body)
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let position = Int.random(in: 0..<mutated.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated[position] = alphabet.randomElement(using: &generator)!
                case 1: mutated.remove(at: position)
                default: mutated.insert(alphabet.randomElement(using: &generator)!, at: position)
                }
                if mutated.isEmpty { mutated = [0x41] }
            }
            do {
                _ = try parser.parse(SyntheticCrashReport.signed(Data(mutated)))
            } catch {
                #expect([.malformed, .foreign, .unsupportedVersion, .truncated, .empty].contains(error.reason), "\(error)")
            }
        }
    }

    @Test("a report larger than the reader's limit is refused before it is parsed")
    func tooLarge() throws {
        var small = RawCrashReportParser(maxBytes: 100)
        small.maxThreads = 4
        let bytes = try SyntheticCrashReport().bytes()
        do { _ = try small.parse(bytes); Issue.record("accepted") } catch { #expect(error.reason == .tooLarge) }
    }
}

extension Data {
    /// The last index of `byte` strictly before `end`.
    func lastIndex(of byte: UInt8, before end: Int) -> Int? {
        var index = Swift.min(end, count) - 1
        while index >= 0 {
            if self[self.startIndex + index] == byte { return index }
            index -= 1
        }
        return nil
    }
}
