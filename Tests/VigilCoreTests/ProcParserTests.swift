import Foundation
import Testing
import VigilCore

@Suite("/proc parsers")
struct ProcParserTests {
    /// A real /proc/self/stat line (Linux 6.1, Debian 12), with a comm that needs the last-paren rule.
    static let stat = "48213 (vigil (sample) 2) S 48190 48213 48190 34816 48213 4194304 2154 0 3 0 "
        + "37 12 0 0 20 0 3 0 7385421 233496576 5871 18446744073709551615 94791036706816 94791038044353 "
        + "140727393226896 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0 94791038314128 94791038379504 "
        + "94791063715840 140727393232351 140727393232383 140727393232383 140727393234917 0\n"

    static let systemStat = """
        cpu  10132153 290696 3084719 46828483 16683 0 25195 0 0 0
        cpu0 1393280 32966 572056 13366730 5027 0 13244 0 0 0
        intr 199292000 9 0 0
        ctxt 395873924
        btime 1767225600
        processes 48300
        procs_running 2
        procs_blocked 0

        """

    static let status = """
        Name:\tvigil-sample
        Umask:\t0022
        State:\tS (sleeping)
        Tgid:\t48213
        VmPeak:\t  228024 kB
        VmSize:\t  228024 kB
        VmHWM:\t   23508 kB
        VmRSS:\t   23484 kB
        RssAnon:\t    5296 kB
        Threads:\t3
        voluntary_ctxt_switches:\t150

        """

    static let smapsRollup = """
        55c0e2c4f000-7ffd3b5fe000 ---p 00000000 00:00 0                          [rollup]
        Rss:               23484 kB
        Pss:               12876 kB
        Pss_Anon:           5296 kB
        Shared_Clean:      17124 kB

        """

    @Test("a stat line gives pid, comm (with spaces and parens), CPU ticks, faults, start time and rss")
    func statFields() throws {
        let stat = try ProcStat(parsing: Self.stat)
        #expect(stat.pid == 48213)
        #expect(stat.comm == "vigil (sample) 2")
        #expect(stat.state == "S")
        #expect(stat.minorFaults == 2154)
        #expect(stat.majorFaults == 3)
        #expect(stat.userTicks == 37)
        #expect(stat.systemTicks == 12)
        #expect(stat.threadCount == 3)
        #expect(stat.startTimeTicks == 7385421)
        #expect(stat.residentPages == 5871)
        #expect(stat.cpuSeconds(clockTicksPerSecond: 100).isApproximately(0.49))
        #expect(stat.pageFaults == PageFaultCounts(minor: 2154, major: 3))
    }

    @Test("a task stat line gives the thread's name")
    func taskStat() throws {
        let line = "48215 (vigil.watchdog) S 48190 48213 48190 34816 48213 4194368 12 0 0 0 "
            + "4 9 0 0 20 0 3 0 7385440 233496576 5871 18446744073709551615\n"
        let stat = try ProcStat(parsing: line, file: "/proc/self/task/48215/stat")
        #expect(stat.comm == "vigil.watchdog")
        #expect(stat.userTicks + stat.systemTicks == 13)
    }

    @Test("process start = boot time + start ticks / clock ticks per second")
    func processStart() throws {
        let date = try ProcessStartTime.date(stat: Self.stat, systemStat: Self.systemStat, clockTicksPerSecond: 100)
        #expect(date.timeIntervalSince1970.isApproximately(1_767_225_600 + 73_854.21, tolerance: 1e-4))
        #expect(throws: ProcParseError.self) {
            try ProcessStartTime.date(startTimeTicks: 1, bootTimeSeconds: 1, clockTicksPerSecond: 0)
        }
        #expect(throws: ProcParseError.self) {
            try ProcessStartTime.date(startTimeTicks: .max, bootTimeSeconds: .max, clockTicksPerSecond: 1)
        }
    }

    @Test("status gives VmRSS, VmHWM and Threads; smaps_rollup gives Pss and Rss, in bytes")
    func memoryFiles() throws {
        let status = try ProcStatus(parsing: Self.status)
        #expect(status.rssBytes == 23484 * 1024)
        #expect(status.peakRSSBytes == 23508 * 1024)
        #expect(status.threadCount == 3)
        let rollup = try ProcSmapsRollup(parsing: Self.smapsRollup)
        #expect(rollup.pssBytes == 12876 * 1024)
        #expect(rollup.rssBytes == 23484 * 1024)
        #expect(try ProcSystemStat(parsing: Self.systemStat).bootTimeSeconds == 1_767_225_600)
    }

    @Test("malformed stat text throws a typed error naming the field", arguments: [
        ("", "text"),
        ("   \n", "text"),
        ("48213 vigil S 1 2 3", "comm (field 2)"),
        ("48213 (vigil S 1 2 3", "comm (field 2)"),
        ("x (vigil) S 1 1 1 0 1 0 1 0 0 0 1 1 0 0 20 0 1 0 5 6 7", "pid (field 1)"),
        ("-5 (vigil) S 1 1 1 0 1 0 1 0 0 0 1 1 0 0 20 0 1 0 5 6 7", "pid (field 1)"),
        ("1 (vigil) S 1 1 1 0 1 0 1 0 0 0 1 1 0 0 20 0 1 0", "starttime (field 22)"),
        ("1 (vigil) S 1 1 1 0 1 0 1 0 0 0 1 1 0 0 20 0 1 0 5 6", "rss (field 24)"),
        ("1 (vigil) S 1 1 1 0 1 0 x 0 0 0 1 1 0 0 20 0 1 0 5 6 7", "minflt (field 10)"),
        ("1 (vigil) S 1 1 1 0 1 0 1 0 0 0 -1 1 0 0 20 0 1 0 5 6 7", "utime (field 14)"),
        ("1 (vigil) S 1 1 1 0 1 0 1 0 0 0 99999999999999999999999 1 0 0 20 0 1 0 5 6 7", "utime (field 14)"),
        ("1 (vigil) 42 1 1 1 0 1 0 1 0 0 0 1 1 0 0 20 0 1 0 5 6 7", "state (field 3)"),
        ("1 (vigil)", "state (field 3)"),
    ])
    func malformedStat(text: String, field: String) {
        do {
            _ = try ProcStat(parsing: text)
            Issue.record("expected an error for \(text.debugDescription)")
        } catch {
            #expect(error.field == field)
            #expect(error.file == "/proc/self/stat")
            #expect(!error.description.isEmpty)
        }
    }

    @Test("malformed memory and system files throw typed errors", arguments: [
        ("status", "Name:\tx\nThreads:\t3\n", "VmRSS"),
        ("status", "VmRSS:\t  12 MB\n", "VmRSS"),
        ("status", "VmRSS:\t  twelve kB\n", "VmRSS"),
        ("status", "VmRSS:\t\n", "VmRSS"),
        ("status", "VmRSS:\t 99999999999999999999 kB\n", "VmRSS"),
        ("status", "VmRSS:\t 18014398509481984 kB\n", "VmRSS"),
        ("smaps", "Rss: 10 kB\n", "Pss"),
        ("smaps", "Pss: -3 kB\n", "Pss"),
        ("stat", "cpu 1 2 3\n", "btime"),
        ("stat", "btime soon\n", "btime"),
        ("stat", "btime 0\n", "btime"),
    ])
    func malformedOthers(kind: String, text: String, field: String) {
        do {
            switch kind {
            case "status": _ = try ProcStatus(parsing: text)
            case "smaps": _ = try ProcSmapsRollup(parsing: text)
            default: _ = try ProcSystemStat(parsing: text)
            }
            Issue.record("expected an error for \(text.debugDescription)")
        } catch {
            #expect(error.field == field)
        }
    }

    @Test("text far larger than any /proc file is refused without scanning it")
    func oversized() {
        let huge = String(repeating: "1 ", count: 600_000)
        #expect(throws: ProcParseError.self) { try ProcStat(parsing: huge) }
    }

    @Test("thousands of mutated files either parse or throw ProcParseError, never trap", arguments: [11, 12])
    func mutations(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let alphabet = Array("0123456789 ()\n\t:-kBxS".utf8) + [0xFF, 0x00]
        let originals = [Self.stat, Self.systemStat, Self.status, Self.smapsRollup]
        var parsed = 0
        var rejected = 0
        for round in 0..<2000 {
            var bytes = Array(originals[round % originals.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[index] = alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(alphabet[Int.random(in: 0..<alphabet.count, using: &random)], at: index)
                default: bytes.removeSubrange(index...)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let outcome = Self.parseWithEveryParser(text)
            parsed += outcome.parsed
            rejected += outcome.errors.count
            #expect(outcome.errors.allSatisfy { !$0.field.isEmpty })
        }
        #expect(parsed > 0 && rejected > 0)
    }

    /// Runs all four parsers over `text`; each either parses or throws a typed error.
    private static func parseWithEveryParser(_ text: String) -> (parsed: Int, errors: [ProcParseError]) {
        var parsed = 0
        var errors: [ProcParseError] = []
        do { _ = try ProcStat(parsing: text); parsed += 1 } catch { errors.append(error) }
        do { _ = try ProcSystemStat(parsing: text); parsed += 1 } catch { errors.append(error) }
        do { _ = try ProcStatus(parsing: text); parsed += 1 } catch { errors.append(error) }
        do { _ = try ProcSmapsRollup(parsing: text); parsed += 1 } catch { errors.append(error) }
        return (parsed, errors)
    }

    #if os(Linux)
    @Test("this process's own /proc files parse")
    func liveProc() throws {
        let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let parsed = try ProcStat(parsing: stat)
        #expect(parsed.pid == Int(ProcessInfo.processInfo.processIdentifier))
        let start = try ProcessStartTime.date(stat: stat, systemStat: String(contentsOfFile: "/proc/stat", encoding: .utf8),
                                              clockTicksPerSecond: 100)
        #expect(start <= Date())
        #expect(start > Date().addingTimeInterval(-7 * 86_400))
        #expect(try ProcStatus(parsing: String(contentsOfFile: "/proc/self/status", encoding: .utf8)).rssBytes > 0)
        if let rollup = try? String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .utf8) {
            #expect(try ProcSmapsRollup(parsing: rollup).pssBytes > 0)
        }
    }
    #endif
}
