import Foundation

/// What a watchdog termination's text says: the event, the time allowance and the CPU use,
/// from any of the layouts Apple has written (`Termination Description: SPRINGBOARD, …`,
/// `<RBSTerminateContext| … explanation:… >` lines, the `.ips` `termination.reasons` array).
public struct WatchdogFacts: Sendable, Hashable {
    /// When in the app's life the watchdog fired.
    public enum Phase: String, Sendable, Hashable, Codable {
        /// Launch: the first frame was not drawn in time (`scene-create`, `launch`).
        case launch
        /// Returning to the foreground (`resume`).
        case resume
        /// Going to the background (`suspend`).
        case suspend
        /// Exiting (`process-exit`, "failed to terminate gracefully").
        case exit
        /// Updating the UI while running (`scene-update`).
        case uiUpdate = "ui-update"
        /// Anything else.
        case other
    }

    /// The watchdog event as written, e.g. `scene-create`.
    public var event: String?
    /// The phase the event belongs to.
    public var phase: Phase
    /// The wall-clock allowance the app exhausted, in seconds.
    public var allowanceSeconds: Double?
    /// CPU time of the whole system over the allowance, in seconds, and as a percentage.
    public var totalCPUSeconds: Double?
    public var totalCPUPercent: Double?
    /// CPU time of the app over the allowance, in seconds, and as a percentage.
    public var appCPUSeconds: Double?
    public var appCPUPercent: Double?
    /// `ProcessVisibility` (Foreground, Background).
    public var visibility: String?

    /// Parses the watchdog text of a termination.
    public static func parse(_ termination: TerminationDetails) -> WatchdogFacts {
        let text = ([termination.indicator ?? ""] + termination.details).joined(separator: "\n")
        var facts = WatchdogFacts(phase: .other)
        facts.event = value(after: "WatchdogEvent:", in: text) ?? eventBeforeTransgression(text) ?? failedTo(text)
        facts.allowanceSeconds = number(after: "allowance of ", in: text) ?? number(after: "time limit ", in: text)
            ?? number(after: "gracefully after ", in: text) ?? number(after: "after ", in: text)
        facts.totalCPUSeconds = number(after: "Elapsed total CPU time (seconds): ", in: text)
        facts.totalCPUPercent = percent(onLineWith: "Elapsed total CPU time", in: text)
        facts.appCPUSeconds = number(after: "Elapsed application CPU time (seconds): ", in: text)
        facts.appCPUPercent = percent(onLineWith: "Elapsed application CPU time", in: text)
        facts.visibility = value(after: "ProcessVisibility:", in: text)
        let event = (facts.event ?? "").lowercased()
        if event.contains("create") || event.contains("launch") {
            facts.phase = .launch
        } else if event.contains("resume") || event.contains("foreground") || event.contains("activat") {
            facts.phase = .resume
        } else if event.contains("suspend") {
            facts.phase = .suspend
        } else if event.contains("exit") || event.contains("terminat") || text.contains("terminate gracefully") {
            facts.phase = .exit
        } else if event.contains("update") {
            facts.phase = .uiUpdate
        }
        if facts.event == nil, text.contains("terminate gracefully") { facts.event = "process-exit" }
        return facts
    }

    /// "during launch", "while resuming"…
    public var phasePhrase: String {
        switch phase {
        case .launch: return "during launch"
        case .resume: return "while returning to the foreground"
        case .suspend: return "while going to the background"
        case .exit: return "while exiting"
        case .uiUpdate: return "while updating the UI"
        case .other: return "while running"
        }
    }

    /// The first word after `marker` on its line.
    static func value(after marker: String, in text: String) -> String? {
        guard let range = text.range(of: marker) else { return nil }
        let rest = text[range.upperBound...].drop(while: { $0 == " " })
        let word = rest.prefix(while: { !$0.isWhitespace && $0 != "," && $0 != "|" && $0 != ">" })
        return word.isEmpty ? nil : String(word)
    }

    /// `scene-create` in `explanation:scene-create watchdog transgression` or
    /// `SPRINGBOARD, scene-create watchdog transgression`.
    static func eventBeforeTransgression(_ text: String) -> String? {
        guard let range = text.range(of: " watchdog transgression") else { return nil }
        let before = text[..<range.lowerBound]
        let word = before.reversed().prefix(while: { !$0.isWhitespace && $0 != ":" && $0 != "," })
        return word.isEmpty ? nil : String(word.reversed())
    }

    /// `launch` in `failed to launch in time`, `scene-create` in `failed to scene-create after 19.93s`.
    static func failedTo(_ text: String) -> String? {
        guard let range = text.range(of: "failed to ") else { return nil }
        let word = text[range.upperBound...].prefix(while: { !$0.isWhitespace })
        return word.isEmpty ? nil : String(word)
    }

    /// The decimal number right after `marker` (a trailing `s` is allowed).
    static func number(after marker: String, in text: String) -> Double? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].prefix(while: { $0.isASCIIDigit || $0 == "." })
        guard let value = Double(digits), value.isFinite else { return nil }
        return value
    }

    /// The `NN% CPU` figure on the line containing `marker`.
    static func percent(onLineWith marker: String, in text: String) -> Double? {
        guard let range = text.range(of: marker) else { return nil }
        let line = text[range.upperBound...].prefix(while: { $0 != "\n" })
        guard let percent = line.range(of: "% CPU") else { return nil }
        let digits = line[..<percent.lowerBound].reversed().prefix(while: { $0.isASCIIDigit || $0 == "." })
        return Double(String(digits.reversed()))
    }
}
