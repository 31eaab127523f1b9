import CFuzzDriver
import Foundation
import FuzzSupport
import VigilCore

/// Reads the input as every `/proc` file Vigil parses (`stat`, `/proc/stat`, `status`,
/// `smaps_rollup`) and as the pair the process start time comes from: never a trap, and every
/// value a parser accepts survives being written back in the file's own layout and parsed again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProcFS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    // The first two bytes pick a clock rate (including the impossible ones), the rest is text.
    let ticksChoice = input.u16()
    let clockTicksPerSecond = ticksChoice == 0xFFFF ? Int.max : Int(Int16(bitPattern: ticksChoice))
    let text = String(decoding: input.rest(), as: UTF8.self)

    if let stat = try? ProcStat(parsing: text) {
        checkStatRoundTrip(stat)
        let seconds = stat.cpuSeconds(clockTicksPerSecond: clockTicksPerSecond)
        fuzzCheck(seconds.isFinite && seconds >= 0, "cpuSeconds \(seconds)")
    }
    if let system = try? ProcSystemStat(parsing: text) {
        fuzzCheck(system.bootTimeSeconds > 0, "boot time 0 accepted")
        let again = try? ProcSystemStat(parsing: "cpu  1 2 3 4\nbtime \(system.bootTimeSeconds)\nprocesses 9\n")
        fuzzCheck(again == system, "btime \(system.bootTimeSeconds) does not parse back")
    }
    if let status = try? ProcStatus(parsing: text) {
        fuzzCheck(status.rssBytes % 1024 == 0 && (status.peakRSSBytes ?? 0) % 1024 == 0, "status bytes not whole kB")
        var rendered = "Name:\tx\nVmHWM:\t\((status.peakRSSBytes ?? 0) / 1024) kB\nVmRSS:\t\(status.rssBytes / 1024) kB\n"
        if status.peakRSSBytes == nil { rendered = "Name:\tx\nVmRSS:\t\(status.rssBytes / 1024) kB\n" }
        if let threads = status.threadCount { rendered += "Threads:\t\(threads)\n" }
        let again = try? ProcStatus(parsing: rendered)
        fuzzCheck(again == status, "status \(status) does not parse back from \(rendered.debugDescription)")
    }
    if let rollup = try? ProcSmapsRollup(parsing: text) {
        var rendered = "00400000-7fff0000 ---p 00000000 00:00 0  [rollup]\n"
        if let rss = rollup.rssBytes { rendered += "Rss:    \(rss / 1024) kB\n" }
        rendered += "Pss:    \(rollup.pssBytes / 1024) kB\n"
        let again = try? ProcSmapsRollup(parsing: rendered)
        fuzzCheck(again == rollup, "smaps_rollup \(rollup) does not parse back")
    }

    // The start time reads two files: split the text at its first NUL (never in a /proc text).
    let parts = text.split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false)
    let systemText = parts.count > 1 ? String(parts[1]) : text
    if let date = try? ProcessStartTime.date(stat: String(parts[0]), systemStat: systemText,
                                             clockTicksPerSecond: clockTicksPerSecond) {
        let seconds = date.timeIntervalSince1970
        fuzzCheck(seconds.isFinite && seconds > 0 && seconds < 253_402_300_800, "start time \(seconds)")
    }
    return 0
}

/// Writes `stat` back as a `stat` line (52 fields, the ones Vigil reads in their places) and
/// checks that parsing it gives the same value.
private func checkStatRoundTrip(_ stat: ProcStat) {
    fuzzCheck(stat.pid >= 0 && stat.pid <= Int(Int32.max), "pid \(stat.pid)")
    fuzzCheck(stat.comm.count <= 64, "comm of \(stat.comm.count) characters kept")
    var fields = [String](repeating: "0", count: 52)
    fields[0] = String(stat.pid)
    fields[1] = "(\(stat.comm))"
    fields[2] = String(stat.state)
    fields[9] = String(stat.minorFaults)
    fields[11] = String(stat.majorFaults)
    fields[13] = String(stat.userTicks)
    fields[14] = String(stat.systemTicks)
    fields[19] = String(stat.threadCount)
    fields[21] = String(stat.startTimeTicks)
    fields[23] = String(stat.residentPages)
    let line = fields.joined(separator: " ") + "\n"
    let again = try? ProcStat(parsing: line)
    fuzzCheck(again == stat, "stat \(stat) does not parse back from \(line.debugDescription)")
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzProcFS_main")
public func fuzzProcFSMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzProcFS(data, size)
    }
}
