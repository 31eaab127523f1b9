import Foundation

/// The fields Vigil uses from `/proc/self/stat` or `/proc/self/task/<tid>/stat` (proc(5)):
/// process or thread identity, CPU time, page faults, start time and resident pages.
///
/// Parsed from the file's text by ``init(parsing:file:)``: `comm` may contain spaces and
/// parentheses, so it is taken between the first `(` and the *last* `)`. Never traps; malformed
/// text throws ``ProcParseError`` naming the field and its byte offset.
public struct ProcStat: Sendable, Hashable {
    /// Process (or thread) id, field 1.
    public var pid: Int
    /// Executable name, or the thread's name for a task file, field 2 (at most 64 bytes kept).
    public var comm: String
    /// State letter (`R`, `S`, `D`, …), field 3.
    public var state: Character
    /// Minor page faults, field 10.
    public var minorFaults: UInt64
    /// Major page faults, field 12.
    public var majorFaults: UInt64
    /// User-mode CPU time in clock ticks, field 14.
    public var userTicks: UInt64
    /// Kernel-mode CPU time in clock ticks, field 15.
    public var systemTicks: UInt64
    /// Threads in the process, field 20.
    public var threadCount: UInt64
    /// Start time in clock ticks after boot, field 22.
    public var startTimeTicks: UInt64
    /// Resident set size in pages, field 24.
    public var residentPages: UInt64

    /// A value with the given fields (tests and fixtures).
    public init(pid: Int, comm: String, state: Character, minorFaults: UInt64, majorFaults: UInt64,
                userTicks: UInt64, systemTicks: UInt64, threadCount: UInt64, startTimeTicks: UInt64,
                residentPages: UInt64) {
        self.pid = pid
        self.comm = comm
        self.state = state
        self.minorFaults = minorFaults
        self.majorFaults = majorFaults
        self.userTicks = userTicks
        self.systemTicks = systemTicks
        self.threadCount = threadCount
        self.startTimeTicks = startTimeTicks
        self.residentPages = residentPages
    }

    /// Parses the text of a `stat` file.
    /// - Parameter file: the path, for error messages only.
    public init(parsing text: String, file: String = "/proc/self/stat") throws(ProcParseError) {
        try ProcText.check(text, file: file)
        let bytes = Array(text.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), close > open else {
            throw ProcParseError(file: file, field: "comm (field 2)", offset: 0,
                                 reason: .malformed("expected the executable name in parentheses"))
        }
        let pidText = String(decoding: bytes[..<open], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard let pidValue = ProcText.unsigned(Substring(pidText)), pidValue <= UInt64(Int32.max) else {
            throw ProcParseError(file: file, field: "pid (field 1)", offset: 0,
                                 reason: .notANumber(ProcText.excerpt(pidText)))
        }
        pid = Int(pidValue)
        comm = String(String(decoding: bytes[(open + 1)..<close], as: UTF8.self).prefix(64))

        // Tokens after ")": token i is field i + 3. Only the first 64 are looked at.
        var tokens: [(text: Substring, offset: Int)] = []
        var index = close + 1
        func isSeparator(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") }
        while index < bytes.count && tokens.count < 64 {
            while index < bytes.count && isSeparator(bytes[index]) { index += 1 }
            let start = index
            while index < bytes.count && !isSeparator(bytes[index]) { index += 1 }
            if index > start {
                tokens.append((Substring(String(decoding: bytes[start..<index], as: UTF8.self)), start))
            }
        }

        func field(_ number: Int, _ name: String) throws(ProcParseError) -> UInt64 {
            let index = number - 3
            guard index >= 0, index < tokens.count else {
                throw ProcParseError(file: file, field: "\(name) (field \(number))", offset: bytes.count,
                                     reason: .missingField)
            }
            let token = tokens[index]
            guard let value = ProcText.unsigned(token.text) else {
                throw ProcParseError(file: file, field: "\(name) (field \(number))", offset: token.offset,
                                     reason: .notANumber(ProcText.excerpt(token.text)))
            }
            return value
        }
        guard let stateToken = tokens.first, stateToken.text.count == 1, let letter = stateToken.text.first,
              letter.isLetter else {
            throw ProcParseError(file: file, field: "state (field 3)", offset: tokens.first?.offset ?? bytes.count,
                                 reason: tokens.isEmpty ? .missingField
                                     : .malformed("expected one state letter, found \"\(ProcText.excerpt(tokens[0].text))\""))
        }
        state = letter
        minorFaults = try field(10, "minflt")
        majorFaults = try field(12, "majflt")
        userTicks = try field(14, "utime")
        systemTicks = try field(15, "stime")
        threadCount = try field(20, "num_threads")
        startTimeTicks = try field(22, "starttime")
        residentPages = try field(24, "rss")
    }

    /// User plus system CPU time in seconds, given `sysconf(_SC_CLK_TCK)` (100 on Linux).
    public func cpuSeconds(clockTicksPerSecond: Int) -> Double {
        guard clockTicksPerSecond > 0 else { return 0 }
        return Double(userTicks &+ systemTicks) / Double(clockTicksPerSecond)
    }

    /// Page faults as counts for the launch timeline.
    public var pageFaults: PageFaultCounts { PageFaultCounts(minor: minorFaults, major: majorFaults) }
}
