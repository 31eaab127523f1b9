import Foundation

/// Reads a raw crash report (docs/crash.md, "Raw format"): checks the end marker's length and
/// CRC-32 first, so that a torn or altered report is never taken for valid, then parses the
/// records.
///
/// Every input is hostile: all reads are bounds-checked, numbers are range-checked, and the
/// work is linear in the file's size, which is capped by ``maxBytes``. Errors are typed
/// (``RawCrashReportError``); nothing traps.
public struct RawCrashReportParser: Sendable {
    /// Largest report accepted, in bytes. The handler writes well under 1 MiB.
    public var maxBytes: Int
    /// Largest frame count accepted per thread.
    public var maxFramesPerThread = 8192
    /// Largest number of threads accepted.
    public var maxThreads = 4096
    /// Largest number of images (and, separately, of late images) accepted.
    public var maxImages = 65_536

    /// A parser accepting reports of up to `maxBytes` bytes (8 MiB by default). Stateless and
    /// `Sendable`; parsing is linear in the report's size.
    public init(maxBytes: Int = 8 * 1024 * 1024) {
        self.maxBytes = maxBytes
    }

    /// Parses `data`, a whole report file.
    public func parse(_ data: Data) throws(RawCrashReportError) -> RawCrashReport {
        guard data.count <= maxBytes else {
            throw RawCrashReportError(.tooLarge, "\(data.count) bytes, more than \(maxBytes)")
        }
        let bytes = [UInt8](data)
        // Zeros after the report are an install-time reservation the handler did not get to cut.
        var end = bytes.count
        while end > 0 && bytes[end - 1] == 0 { end -= 1 }
        guard end > 0 else { throw RawCrashReportError(.empty, "no report (the process did not crash)") }
        let magic = Array("VIGILCRASH ".utf8)
        guard end >= magic.count, Array(bytes[0..<magic.count]) == magic else {
            throw RawCrashReportError(.foreign, offset: 0, "does not start with \"VIGILCRASH \"")
        }
        var versionCursor = Cursor(bytes: bytes, position: magic.count, end: end)
        let version = try versionCursor.decimal("format version")
        guard version == 1 else {
            throw RawCrashReportError(.unsupportedVersion, offset: magic.count, "format version \(version); this reader knows 1")
        }

        // The end marker: the last line, `end <8 hex> <length>`, standing right at `length`.
        guard bytes[end - 1] == 0x0A else {
            throw RawCrashReportError(.truncated, offset: end, "no end marker (the last line is incomplete)")
        }
        var lineStart = end - 1
        while lineStart > 0 && bytes[lineStart - 1] != 0x0A { lineStart -= 1 }
        let endPrefix = Array("end ".utf8)
        guard end - lineStart > endPrefix.count, Array(bytes[lineStart..<lineStart + endPrefix.count]) == endPrefix else {
            throw RawCrashReportError(.truncated, offset: lineStart, "no end marker")
        }
        var marker = Cursor(bytes: bytes, position: lineStart + endPrefix.count, end: end - 1)
        let crcText = try marker.word("checksum")
        guard crcText.count == 8, let expected = UInt32(crcText, radix: 16) else {
            throw RawCrashReportError(.malformed, offset: lineStart, "end marker checksum \"\(crcText.prefix(16))\"")
        }
        try marker.space()
        let length = try marker.decimal("length")
        guard marker.atEnd else { throw RawCrashReportError(.malformed, offset: lineStart, "trailing bytes in the end marker") }
        guard length == UInt64(lineStart) else {
            throw RawCrashReportError(.lengthMismatch, offset: lineStart, "the end marker says \(length) bytes, it stands at \(lineStart)")
        }
        let actual = CrashHandler.crc32(bytes[0..<lineStart].withUnsafeBytes { Data($0) })
        guard actual == expected else {
            throw RawCrashReportError(.checksumMismatch, offset: lineStart,
                                      String(format: "the end marker says %08x, the bytes give %08x", expected, actual))
        }
        return try parseRecords(bytes, end: lineStart, checksum: expected)
    }

    private func parseRecords(_ bytes: [UInt8], end: Int, checksum: UInt32) throws(RawCrashReportError) -> RawCrashReport {
        var cursor = Cursor(bytes: bytes, position: 0, end: end)
        var report = RawCrashReport(formatVersion: 1, operatingSystem: "linux", architecture: "", wordSize: 0, processID: 0, crashedThreadID: 0,
                                    time: Date(timeIntervalSince1970: 0), monotonicNanoseconds: 0, signal: 0, code: 0,
                                    faultAddress: 0, senderProcessID: 0, registers: [], memoryMap: nil, threads: [],
                                    message: nil, exception: nil, machException: nil, metadata: Data(), imageSummary: nil, images: [], lateImages: [],
                                    threadSummary: nil, secondaryCrashes: [], handlerFault: nil, timing: nil,
                                    checksum: checksum, length: end)
        var seen = Set<String>()
        while !cursor.atEnd {
            let recordStart = cursor.position
            let tag = try cursor.word("record tag")
            switch tag {
            case "VIGILCRASH":
                guard recordStart == 0 else { throw cursor.malformed("a second header") }
                report.formatVersion = Int(try cursor.nextDecimal("version"))
                report.architecture = try cursor.nextWord("architecture")
                report.wordSize = Int(try cursor.nextDecimal("word size", max: 16))
            case "process":
                report.processID = try cursor.nextInt32("pid")
                report.crashedThreadID = try cursor.nextInt32("tid")
            case "time":
                let seconds = try cursor.nextDecimal("seconds", max: 1 << 40)
                let nanoseconds = try cursor.nextDecimal("nanoseconds", max: 999_999_999)
                report.monotonicNanoseconds = try cursor.nextDecimal("monotonic")
                report.time = Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
            case "signal":
                report.signal = try cursor.nextInt32("signal")
                report.code = try cursor.nextInt32("code")
                report.faultAddress = try cursor.nextHex("fault address")
                report.senderProcessID = try cursor.nextInt32("sender")
            case "reg":
                let name = try cursor.nextWord("register name")
                let value = try cursor.nextHex("register value")
                guard report.registers.count < 256, name.utf8.count <= 16 else { throw cursor.malformed("too many registers") }
                report.registers.append(.init(name: name, value: value))
            case "map":
                let mappings = try cursor.nextDecimal("mappings")
                let dropped = try cursor.nextDecimal("dropped")
                let malformed = try cursor.nextDecimal("malformed")
                let error = try cursor.nextInt32("error")
                report.memoryMap = .init(mappings: Int(clamping: mappings), dropped: Int(clamping: dropped),
                                         malformed: Int(clamping: malformed), error: error)
            case "thread":
                let id = try cursor.nextInt32("thread id")
                let crashed = try cursor.nextDecimal("crashed", max: 1) == 1
                let flags = UInt32(clamping: try cursor.nextHex("walk flags"))
                let sourceValue = try cursor.nextDecimal("register source", max: 16)
                guard let source = RawCrashReport.RegisterSource(rawValue: Int(sourceValue)) else {
                    throw cursor.malformed("unknown register source \(sourceValue)")
                }
                let count = try cursor.nextDecimal("frame count", max: UInt64(maxFramesPerThread))
                var frames: [UInt64] = []
                frames.reserveCapacity(Int(count))
                for _ in 0..<count {
                    frames.append(try cursor.nextHex("frame"))
                }
                let name = String(decoding: try cursor.nextBlob("thread name", max: 64), as: UTF8.self)
                guard report.threads.count < maxThreads else { throw cursor.malformed("more than \(maxThreads) threads") }
                report.threads.append(.init(id: id, crashed: crashed, walkFlags: flags, source: source, frames: frames, name: name))
            case "message":
                let kind = try cursor.nextWord("message kind")
                let text = String(decoding: try cursor.nextBlob("message", max: 64 * 1024), as: UTF8.self)
                report.message = .init(kind: kind, text: text)
            case "os":
                report.operatingSystem = try cursor.nextWord("operating system")
            case "exception":
                let type = String(decoding: try cursor.nextBlob("exception type", max: 4096), as: UTF8.self)
                let reason = String(decoding: try cursor.nextBlob("exception reason", max: 64 * 1024), as: UTF8.self)
                report.exception = .init(type: type, reason: reason)
            case "exception-stack":
                let count = try cursor.nextDecimal("exception stack count", max: UInt64(maxFramesPerThread))
                var frames: [UInt64] = []
                frames.reserveCapacity(Int(count))
                for _ in 0..<count {
                    frames.append(try cursor.nextHex("exception stack frame"))
                }
                report.exceptionStack = frames
            case "mach":
                let type = try cursor.nextInt32("mach exception")
                let code = try cursor.nextHex("mach code")
                let subcode = try cursor.nextHex("mach subcode")
                report.machException = .init(type: type, code: code, subcode: subcode)
            case "meta":
                report.metadata = Data(try cursor.nextBlob("metadata", max: 64 * 1024))
            case "images":
                let count = try cursor.nextDecimal("image count")
                let dropped = try cursor.nextDecimal("dropped")
                let skipped = try cursor.nextDecimal("skipped")
                report.imageSummary = .init(count: Int(clamping: count), dropped: Int(clamping: dropped), skipped: Int(clamping: skipped))
            case "image":
                let load = try cursor.nextHex("load address")
                let size = try cursor.nextHex("size")
                let bias = try cursor.nextHex("bias")
                let lowest = try cursor.nextHex("lowest vaddr")
                let id = try cursor.nextWord("build id")
                // ASCII hex only: Character.isHexDigit also takes the fullwidth digits.
                guard id == "-" || (id.utf8.count % 2 == 0 && id.utf8.count <= 512 && id.utf8.allSatisfy(\.isASCIIHexDigit)) else {
                    throw cursor.malformed("build id \"\(id.prefix(40))\"")
                }
                let path = String(decoding: try cursor.nextBlob("image path", max: 4096), as: UTF8.self)
                guard report.images.count < maxImages else { throw cursor.malformed("more than \(maxImages) images") }
                report.images.append(.init(loadAddress: load, size: size, bias: bias, lowestVirtualAddress: lowest,
                                           buildID: id == "-" ? "" : id.lowercased(), path: path))
            case "late-image":
                let load = try cursor.nextHex("load address")
                let size = try cursor.nextHex("size")
                let bias = try cursor.nextHex("bias")
                let path = String(decoding: try cursor.nextBlob("image path", max: 4096), as: UTF8.self)
                guard report.lateImages.count < maxImages else { throw cursor.malformed("more than \(maxImages) late images") }
                report.lateImages.append(.init(loadAddress: load, size: size, bias: bias, path: path))
            case "threads":
                var values: [Int] = []
                for _ in 0..<7 {
                    values.append(Int(clamping: try cursor.nextDecimal("thread totals")))
                }
                report.threadSummary = .init(listed: values[0], parked: values[1], fromProc: values[2], withoutRegisters: values[3],
                                             timedOut: values[4], sendFailed: values[5], skipped: values[6])
            case "secondary":
                let id = try cursor.nextInt32("thread id")
                let signal = try cursor.nextInt32("signal")
                let code = try cursor.nextInt32("code")
                let address = try cursor.nextHex("fault address")
                let pc = try cursor.nextHex("pc")
                guard report.secondaryCrashes.count < 64 else { throw cursor.malformed("too many secondary crashes") }
                report.secondaryCrashes.append(.init(threadID: id, signal: signal, code: code, faultAddress: address, pc: pc))
            case "fault":
                let section = UInt32(clamping: try cursor.nextDecimal("section", max: 64))
                let signal = try cursor.nextInt32("signal")
                let code = try cursor.nextInt32("code")
                let address = try cursor.nextHex("fault address")
                let pc = try cursor.nextHex("pc")
                report.handlerFault = .init(section: section, signal: signal, code: code, faultAddress: address, pc: pc)
            case "timing":
                var values: [UInt64] = []
                for _ in 0..<5 {
                    values.append(try cursor.nextDecimal("timing"))
                }
                report.timing = .init(entry: values[0], crashedThreadWritten: values[1], imagesWritten: values[2],
                                      threadsWritten: values[3], end: values[4])
            default:
                // A record of a later minor revision: skipped. Records with blobs are never
                // added without a new format version, so the line ends at the next newline.
                try cursor.skipLine()
                continue
            }
            try cursor.newline()
            seen.insert(tag)
        }
        for required in ["VIGILCRASH", "process", "signal", "meta"] where !seen.contains(required) {
            throw RawCrashReportError(.malformed, "the \(required) record is missing")
        }
        let crashed = report.threads.filter(\.crashed)
        guard crashed.count == 1 else {
            throw RawCrashReportError(.malformed, "\(crashed.count) threads are marked crashed; exactly one must be")
        }
        guard !(crashed[0].frames.isEmpty) else { throw RawCrashReportError(.malformed, "the crashed thread has no frames") }
        return report
    }

    /// A bounds-checked reader over the report's bytes.
    private struct Cursor {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        var atEnd: Bool { position >= end }

        func malformed(_ detail: String) -> RawCrashReportError {
            RawCrashReportError(.malformed, offset: position, detail)
        }

        mutating func space() throws(RawCrashReportError) {
            guard position < end, bytes[position] == 0x20 else { throw malformed("expected a space") }
            position += 1
        }

        mutating func newline() throws(RawCrashReportError) {
            guard position < end, bytes[position] == 0x0A else { throw malformed("expected the end of the record") }
            position += 1
        }

        mutating func skipLine() throws(RawCrashReportError) {
            while position < end && bytes[position] != 0x0A { position += 1 }
            try newline()
        }

        /// A space, then ``word(_:)``.
        mutating func nextWord(_ what: String) throws(RawCrashReportError) -> String {
            try space()
            return try word(what)
        }

        /// A space, then ``decimal(_:max:)``.
        mutating func nextDecimal(_ what: String, max: UInt64 = UInt64.max) throws(RawCrashReportError) -> UInt64 {
            try space()
            return try decimal(what, max: max)
        }

        /// A space, then ``int32(_:)``.
        mutating func nextInt32(_ what: String) throws(RawCrashReportError) -> Int32 {
            try space()
            return try int32(what)
        }

        /// A space, then ``hex(_:)``.
        mutating func nextHex(_ what: String) throws(RawCrashReportError) -> UInt64 {
            try space()
            return try hex(what)
        }

        /// A space, then ``blob(_:max:)``.
        mutating func nextBlob(_ what: String, max: Int) throws(RawCrashReportError) -> ArraySlice<UInt8> {
            try space()
            return try blob(what, max: max)
        }

        /// Bytes up to a space or newline (1 to 512 of them).
        mutating func word(_ what: String) throws(RawCrashReportError) -> String {
            let start = position
            while position < end && bytes[position] != 0x20 && bytes[position] != 0x0A {
                position += 1
                guard position - start <= 512 else { throw malformed("\(what) is too long") }
            }
            guard position > start else { throw malformed("missing \(what)") }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        mutating func decimal(_ what: String, max: UInt64 = UInt64.max) throws(RawCrashReportError) -> UInt64 {
            let start = position
            var value: UInt64 = 0
            while position < end, bytes[position] >= 0x30, bytes[position] <= 0x39 {
                let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(UInt64(bytes[position] - 0x30))
                guard !overflow1, !overflow2 else { throw malformed("\(what) overflows") }
                value = sum
                position += 1
            }
            guard position > start else { throw malformed("expected a number for \(what)") }
            guard value <= max else { throw malformed("\(what) \(value) is out of range") }
            return value
        }

        mutating func int32(_ what: String) throws(RawCrashReportError) -> Int32 {
            var negative = false
            if position < end, bytes[position] == 0x2D {
                negative = true
                position += 1
            }
            let magnitude = try decimal(what, max: negative ? UInt64(Int32.max) + 1 : UInt64(Int32.max))
            return negative ? Int32(truncatingIfNeeded: 0 &- Int64(magnitude)) : Int32(magnitude)
        }

        mutating func hex(_ what: String) throws(RawCrashReportError) -> UInt64 {
            let start = position
            var value: UInt64 = 0
            while position < end {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: digit = 0xFF
                }
                guard digit != 0xFF else { break }
                guard position - start < 16 else { throw malformed("\(what) has more than 16 hex digits") }
                value = value << 4 | UInt64(digit)
                position += 1
            }
            guard position > start else { throw malformed("expected hex digits for \(what)") }
            return value
        }

        /// `<length>:<bytes>`.
        mutating func blob(_ what: String, max: Int) throws(RawCrashReportError) -> ArraySlice<UInt8> {
            let length = try decimal("\(what) length", max: UInt64(max))
            guard position < end, bytes[position] == 0x3A else { throw malformed("expected ':' after the \(what) length") }
            position += 1
            guard Int(length) <= end - position else { throw malformed("\(what) runs past the end of the report") }
            let slice = bytes[position..<position + Int(length)]
            position += Int(length)
            return slice
        }
    }
}

extension UInt8 {
    /// `0`–`9`, `a`–`f` or `A`–`F`.
    fileprivate var isASCIIHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x61...0x66).contains(self) || (0x41...0x46).contains(self)
    }
}
