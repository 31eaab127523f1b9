import CFuzzDriver
import Foundation
import FuzzSupport
import VigilCore

/// Foundation's formatter, the reference for the civil-date arithmetic (one per process: it is
/// costly to make, and libFuzzer runs inputs one at a time on one thread).
nonisolated(unsafe) private let reference: ISO8601DateFormatter = {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter
}()

/// First and last instants `Timestamp.format` writes unclamped: years 0000 to 9999, UTC.
private let firstWritable = -62_167_219_200.0
private let lastWritable = 253_402_300_799.999

/// Reads the input as an RFC 3339 timestamp, and its first eight bytes as a date to format:
/// never a trap; whatever parses formats to the 24-byte canonical form, which parses back to
/// within half a millisecond and is a fixed point (as is `schemaDate`); any date at all formats to text that parses;
/// whole seconds from 1700 to 9999 format as Foundation's ISO 8601 formatter does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimestamp(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let text = String(decoding: input.bytes, as: UTF8.self)
    if let date = Timestamp.parse(text) {
        let seconds = date.timeIntervalSince1970
        fuzzCheck(seconds.isFinite, "\(text.debugDescription) parsed to \(seconds)")
        let formatted = Timestamp.format(date)
        fuzzCheck(formatted.utf8.count == 24, "\(formatted) is not the 24-byte form")
        guard let again = Timestamp.parse(formatted) else { fatalError("\(formatted) does not parse") }
        if seconds >= firstWritable && seconds <= lastWritable {
            let drift = abs(again.timeIntervalSince1970 - seconds)
            // Half a millisecond of rounding, plus the spacing of doubles near the date (30 µs in 9999).
            fuzzCheck(drift <= 0.0005 + 2 * seconds.ulp, "\(text.debugDescription) → \(formatted) drifted \(drift) s")
        }
        fuzzCheck(Timestamp.format(again) == formatted, "\(formatted) is not a fixed point")
        fuzzCheck(Timestamp.parse(formatted.lowercased()) == again, "\(formatted) lowercased parses differently")
        // What event readers keep: a fixed point of format and parse, or nil outside 0000–9999.
        if let kept = Timestamp.schemaDate(date) {
            fuzzCheck(Timestamp.format(kept) == formatted && Timestamp.parse(formatted) == kept,
                      "schemaDate(\(seconds)) = \(kept.timeIntervalSince1970) is not what \(formatted) parses to")
        } else {
            fuzzCheck(seconds < firstWritable || seconds > lastWritable, "schemaDate refused \(seconds), in range")
        }
    }

    // Any double as a date (NaN, infinities, far past and future included).
    let anySeconds = Double(bitPattern: input.u64())
    let formatted = Timestamp.format(Date(timeIntervalSince1970: anySeconds))
    fuzzCheck(formatted.utf8.count == 24 && Timestamp.parse(formatted) != nil, "\(anySeconds) formats to \(formatted)")

    // Whole seconds in 1700...9999 against Foundation (before 1582 it uses the Julian calendar).
    let wholeSeconds = -8_520_336_000 + Int64(input.u64() % 261_922_636_800)
    let date = Date(timeIntervalSince1970: Double(wholeSeconds))
    let ours = Timestamp.format(date)
    let theirs = reference.string(from: date)
    fuzzCheck(ours.prefix(19) == theirs.prefix(19) && theirs.hasSuffix("Z"), "\(wholeSeconds): \(ours) vs \(theirs)")
    fuzzCheck(Timestamp.parse(theirs) == date, "\(theirs) does not parse to \(wholeSeconds)")
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzTimestamp_main")
public func fuzzTimestampMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzTimestamp(data, size)
    }
}
