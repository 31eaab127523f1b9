import Foundation

/// Reads crash reports in any supported format, detecting which one.
///
/// The entry point for the CLI and the server: `.ips` (crash, hang, jetsam), Apple text,
/// MetricKit payloads and Vigil events. A MetricKit payload or an event batch gives several
/// reports. Thread-safe; cost linear in the input.
public enum ReportReader {
    /// The format `data` is in, judged from its first bytes and key names; nil when none fits.
    public static func detectFormat(_ data: Data) -> ReportFormat? {
        let head = data.prefix(256 * 1024)
        guard let first = head.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF })
        else { return nil }
        let text = String(decoding: head, as: UTF8.self)
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            if let firstLine = text.split(separator: "\n", maxSplits: 1).first, firstLine.contains("\"bug_type\""),
               firstLine.hasSuffix("}") || firstLine.hasSuffix("}\r") {
                return .ips
            }
            let vigilEvent = text.contains("\"schema\"") && text.contains("\"payload\"")
            if !vigilEvent, isKSCrash(text) { return .ksCrash }
            for key in ["crashDiagnostics", "hangDiagnostics", "cpuExceptionDiagnostics", "diskWriteExceptionDiagnostics",
                        "appLaunchDiagnostics", "callStackTree"] where text.contains("\"\(key)\"") {
                return .metricKit
            }
            if text.contains("\"schema\""), text.contains("\"payload\"") { return .vigil }
            if text.contains("\"usedImages\"") || text.contains("\"procName\"") || text.contains("\"bug_type\"") { return .ips }
            return nil
        }
        if text.contains("\n{\""), text.contains("\"bug_type\"") { return .ips }
        return .appleText
    }

    /// Whether JSON text has KSCrash's top-level sections (`crash` with `report`, `system` or
    /// `binary_images`, or a `recrash_report`).
    static func isKSCrash(_ text: String) -> Bool {
        if text.contains("\"recrash_report\"") { return true }
        guard text.contains("\"crash\"") else { return false }
        return text.contains("\"binary_images\"") || (text.contains("\"report\"") && text.contains("\"process_name\""))
    }

    /// Reads every report in `data`.
    ///
    /// - Throws: ``ReportError`` when the input is empty, too large, of no supported format,
    ///   or damaged beyond use. Damage a reader can work around gives partial reports instead.
    public static func read(_ data: Data, limits: ReportLimits = .standard) throws(ReportError) -> [CrashReport] {
        guard data.count <= limits.maxBytes else { throw .tooLarge(bytes: data.count, limit: limits.maxBytes) }
        guard let format = detectFormat(data) else {
            if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { throw .empty }
            throw .unrecognizedFormat("JSON that is neither an .ips report, a MetricKit payload nor a Vigil event")
        }
        return try read(data, as: format, limits: limits)
    }

    /// Reads `data` as `format`.
    public static func read(_ data: Data, as format: ReportFormat, limits: ReportLimits = .standard) throws(ReportError) -> [CrashReport] {
        switch format {
        case .ips: return try IPSReader.readAll(data, limits: limits)
        case .appleText: return try AppleTextReader.readAll(data, limits: limits)
        case .ksCrash: return try KSCrashReader.read(data, limits: limits)
        case .metricKit: return try MetricKitReader.read(data, limits: limits)
        case .vigil: return try VigilEventReader.read(data, limits: limits)
        }
    }
}
