import Foundation

/// A Swift runtime check that trapped: `EXC_BREAKPOINT`/`brk 1` on ARM, `EXC_BAD_INSTRUCTION`
/// (`SIGILL`) on x86_64. The kind (force-unwrapped nil, index out of range, failed cast,
/// overflow, unowned reference, exclusivity…) comes from the runtime's message or the
/// compiler's `Swift runtime failure:` frame, else from the symbols at the top of the stack,
/// following Apple's "Addressing crashes from Swift runtime errors".
public struct SwiftRuntimeErrorRule: DiagnosisRule {
    public let id = "swift-runtime-error"
    public let priority = 70

    public init() {}

    /// A kind of Swift runtime failure, with the words that identify it.
    struct Kind {
        var id: String
        var phrase: String
        var messages: [String]
        var symbols: [String]
        var advice: String
    }

    static let kinds: [Kind] = [
        Kind(id: "force-unwrap-nil", phrase: "a force-unwrapped Optional was nil",
             messages: ["Unexpectedly found nil while unwrapping", "Unexpectedly found nil while implicitly unwrapping"],
             symbols: ["_diagnoseUnexpectedNilOptional"],
             advice: "Replace `!` with `if let`/`guard let` or a default, and find why the value is nil there."),
        Kind(id: "index-out-of-range", phrase: "an index was out of range",
             messages: ["Index out of range", "index out of bounds", "Array index is out of range", "String index is out of bounds",
                        "Range out of bounds", "Range requires lowerBound <= upperBound"],
             symbols: ["_checkIndex", "_checkInoutAndNativeBounds", "_checkInoutAndNativeTypeCheckedBounds", "_checkSubscript",
                       "_outOfBoundsCheckFailed", "_ArrayBuffer._checkValidSubscript", "Array.subscript", "ContiguousArray.subscript"],
             advice: "Check the index against the collection's count (or use indices / first / last) before subscripting."),
        Kind(id: "failed-cast", phrase: "a forced cast (as!) failed",
             messages: ["Could not cast value of type"], symbols: ["swift_dynamicCastFailure", "swift_dynamicCastClassUnconditional"],
             advice: "Use `as?` and handle the mismatch, or fix the value's type at its source."),
        Kind(id: "arithmetic-overflow", phrase: "an arithmetic operation overflowed",
             messages: ["Arithmetic overflow", "Division by zero", "Division results in an overflow", "Not enough bits to represent",
                        "Double value cannot be converted", "Float value cannot be converted"],
             symbols: [], advice: "Validate the operands, or use &+ / multipliedReportingOverflow / Int(exactly:)."),
        Kind(id: "unowned-deallocated", phrase: "an unowned reference outlived its object",
             messages: ["Attempted to read an unowned reference but object", "was already deallocated"],
             symbols: ["swift_abortRetainUnowned", "swift_unknownObjectUnownedLoadStrong", "swift::swift_abortRetainUnowned"],
             advice: "Make the reference weak and handle nil, or make sure the owner outlives it."),
        Kind(id: "exclusivity", phrase: "simultaneous accesses to one variable",
             messages: ["Simultaneous accesses to"], symbols: ["swift_beginAccess", "swift::runtime::AccessSet::insert"],
             advice: "Do not modify a variable while it is being accessed (inout arguments, mutating methods); copy it first."),
        Kind(id: "continuation-misuse", phrase: "a checked continuation was resumed twice or never",
             messages: ["SWIFT TASK CONTINUATION MISUSE"], symbols: ["CheckedContinuation.resume"],
             advice: "Resume each continuation exactly once on every path."),
        Kind(id: "precondition", phrase: "a precondition failed", messages: ["Precondition failed"], symbols: ["_preconditionFailure"],
             advice: "The code's own precondition was violated; the message names it."),
        Kind(id: "assertion", phrase: "an assertion failed", messages: ["Assertion failed"], symbols: ["_assertionFailure(_:_:file:line:flags:)"],
             advice: "The code's own assertion was violated; the message names it."),
        Kind(id: "fatal-error", phrase: "fatalError was called", messages: ["Fatal error"], symbols: ["_assertionFailure", "fatalError"],
             advice: "The code called fatalError; the message names the condition."),
    ]

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        let report = facts.report
        let trap = facts.exceptionType == "EXC_BREAKPOINT" || facts.exceptionType == "EXC_BAD_INSTRUCTION"
            || facts.signal == "SIGTRAP" || facts.signal == "SIGILL"
            || (facts.crashedThread?.register("esr").map { $0 == 0xF200_0001 } ?? false)
        guard trap, report.kind == .crash, let crashed = facts.crashedThreadIndex else { return nil }
        let thread = report.threads[crashed]
        let symbols = thread.frames.prefix(16).compactMap { $0.symbol.map(FunctionName.base) }
        // Traps in the system's own API checks are API misuse, not Swift runtime errors.
        if facts.mentions("BUG IN CLIENT OF") || facts.mentions("BUG IN LIBDISPATCH") { return nil }
        let swiftMessage = facts.messages.first(where: { message in Self.kinds.contains { kind in kind.messages.contains { message.contains($0) } } })
            ?? (report.languageException?.kind == .swift ? report.languageException?.reason : nil)
        let runtimeFailure = thread.frames.prefix(8).compactMap(\.symbol).first(where: { $0.hasPrefix("Swift runtime failure") })
        let swiftFrames = symbols.contains { symbol in Self.kinds.contains { $0.symbols.contains { symbol.contains($0) } } }
        let topImage = thread.frames.first.flatMap { report.image(of: $0) }
        let appTop = thread.frames.first.map(report.isInApp) ?? false || (topImage?.name.hasPrefix("libswift") ?? false)
        guard swiftMessage != nil || runtimeFailure != nil || swiftFrames || appTop else { return nil }

        let text = [swiftMessage, runtimeFailure].compactMap { $0 }.joined(separator: " ")
        var kind = Self.kinds.first(where: { kind in kind.messages.contains { text.contains($0) } })
        if kind == nil {
            kind = Self.kinds.first(where: { kind in symbols.contains { symbol in kind.symbols.contains { symbol.contains($0) } } })
        }
        var evidence = [Evidence("exception.type", [facts.exceptionType, facts.signal].compactMap { $0 }.joined(separator: " / "),
                                 "a trap instruction: Swift's runtime checks stop the process this way")]
        if let esr = thread.register("esr"), esr == 0xF200_0001 {
            evidence.append(Evidence("threads[\(crashed)].registers.esr", "0xf2000001", "brk #1, Swift's trap instruction"))
        }
        if let swiftMessage { evidence.append(Evidence("applicationSpecificInfo", swiftMessage, "the Swift runtime's message")) }
        if let runtimeFailure { evidence.append(Evidence("threads[\(crashed)].frames", runtimeFailure, "the compiler's marker for the failed check")) }
        // The app's frame that holds the failed check.
        let outer = facts.outerFrames(crashed)
        let appIndex = outer.firstIndex { report.isInApp($0) } ?? 0
        let location = outer.indices.contains(appIndex) ? facts.describe(outer[appIndex]) : nil
        if let item = facts.frameEvidence(thread: crashed, frame: appIndex, "the code with the failed check") { evidence.append(item) }
        let phrase = kind?.phrase ?? "a runtime check trapped"
        let title = "Swift runtime error: \(phrase)" + (location.map { " in \($0)" } ?? "")
        let confidence: Confidence = (swiftMessage != nil || runtimeFailure != nil) ? .high : kind != nil ? .medium : .low
        var advice = [kind?.advice ?? "Frame 0 in the app's code is the line with the failed check (an implicit force unwrap, bounds check, cast or overflow check)."]
        advice.append("Symbolicate the report with the dSYM to get the file and line of the check.")
        return Diagnosis(ruleID: id, category: .swiftRuntimeError, title: title, confidence: confidence, evidence: evidence,
                         advice: advice, facts: [ReportField(name: "swiftErrorKind", value: kind?.id ?? "unknown-trap")])
    }
}
