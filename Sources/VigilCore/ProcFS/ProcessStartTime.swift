import Foundation

/// The process's start time on Linux, from the contents of `/proc/self/stat` (start time in
/// clock ticks after boot) and `/proc/stat` (boot time in seconds since the epoch).
///
/// Pure functions over the files' text, so the runtime only reads the files and passes
/// `sysconf(_SC_CLK_TCK)`. Resolution is one clock tick (10 ms at the usual 100 Hz).
public enum ProcessStartTime {
    /// The start time described by the two files' text.
    public static func date(stat: String, systemStat: String, clockTicksPerSecond: Int) throws(ProcParseError) -> Date {
        let process = try ProcStat(parsing: stat)
        let system = try ProcSystemStat(parsing: systemStat)
        return try date(startTimeTicks: process.startTimeTicks, bootTimeSeconds: system.bootTimeSeconds,
                        clockTicksPerSecond: clockTicksPerSecond)
    }

    /// `bootTimeSeconds + startTimeTicks / clockTicksPerSecond` as a date.
    public static func date(startTimeTicks: UInt64, bootTimeSeconds: UInt64,
                            clockTicksPerSecond: Int) throws(ProcParseError) -> Date {
        guard clockTicksPerSecond > 0, clockTicksPerSecond <= 1_000_000_000 else {
            throw ProcParseError(file: "sysconf(_SC_CLK_TCK)", field: "clock ticks per second",
                                 reason: .outOfRange("\(clockTicksPerSecond) ticks per second"))
        }
        let seconds = Double(bootTimeSeconds) + Double(startTimeTicks) / Double(clockTicksPerSecond)
        // Beyond year 9999 the value is not a real start time.
        guard seconds < 253_402_300_800 else {
            throw ProcParseError(file: "/proc/self/stat", field: "starttime (field 22)",
                                 reason: .outOfRange("start time \(seconds) s after the epoch is after year 9999"))
        }
        return Date(timeIntervalSince1970: seconds)
    }
}
