import Foundation

/// Stack overflow: a bad access in the stack guard, or with the kernel's "excessive
/// recursion" message, or with the fault just below the stack pointer and a deep stack whose
/// frames repeat (the recursion pattern).
public struct StackOverflowRule: DiagnosisRule {
    public let id = "stack-overflow"
    public let priority = 85

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        let report = facts.report
        let isBadAccess = facts.exceptionType == "EXC_BAD_ACCESS" || facts.signal == "SIGSEGV" || facts.signal == "SIGBUS"
        guard isBadAccess, report.kind == .crash else { return nil }
        var evidence: [Evidence] = []
        var strong = false
        if let message = report.exception?.message, message.lowercased().contains("stack size exceeded") || message.contains("recursion") {
            evidence.append(Evidence("exception.message", message, "the kernel reports a stack overflow"))
            strong = true
        }
        if let region = report.vmRegionInfo,
           let arrow = region.split(separator: "\n").first(where: { $0.contains("--->") }), arrow.uppercased().contains("STACK GUARD") {
            evidence.append(Evidence("vmRegionInfo", arrow.trimmingCharacters(in: .whitespaces), "the fault is in a thread's stack guard page"))
            strong = true
        }
        var nearStackPointer = false
        if let crashed = facts.crashedThread, let address = report.exception?.faultAddress,
           let sp = crashed.register("sp") ?? crashed.register("rsp") {
            let distance = address > sp ? address - sp : sp - address
            if distance <= 64 * 1024 {
                nearStackPointer = true
                evidence.append(Evidence("threads[\(facts.crashedThreadIndex ?? 0)].registers.sp", "0x" + String(sp, radix: 16),
                                         "the fault address is \(distance) bytes from the stack pointer"))
            }
        }
        let recursion = facts.crashedThreadIndex.flatMap { recursionPattern(facts, thread: $0) }
        if let recursion {
            evidence.append(Evidence("threads[\(facts.crashedThreadIndex ?? 0)].frames", "\(recursion.function) ×\(recursion.count)",
                                     "the same function repeats through the stack: recursion"))
        }
        guard strong || (nearStackPointer && recursion != nil) || (recursion?.count ?? 0) >= 200 else { return nil }
        let where_ = recursion.map { " in \($0.function), which recurses" } ?? ""
        return Diagnosis(
            ruleID: id, category: .stackOverflow, title: "Stack overflow\(where_)",
            confidence: strong || nearStackPointer ? .high : .medium, evidence: evidence,
            advice: ["Find the recursion's missing base case, or turn the recursion into a loop with an explicit stack.",
                     "Large local variables (arrays, structs) in deep call chains also exhaust the stack: move them to the heap."],
            facts: recursion.map { [ReportField(name: "recursiveFunction", value: $0.function)] } ?? [])
    }

    /// The function (or cycle) repeating most in the crashed thread, when it repeats at least
    /// 16 times and makes up most of a deep stack.
    func recursionPattern(_ facts: ReportFacts, thread: Int) -> (function: String, count: Int)? {
        let symbols = facts.outerFrames(thread).map { frame in
            frame.symbol.map(FunctionName.base) ?? "\(facts.report.image(of: frame)?.name ?? "?")+\(frame.imageOffset)"
        }
        guard symbols.count >= 32 else { return nil }
        var counts: [String: Int] = [:]
        for symbol in symbols { counts[symbol, default: 0] += 1 }
        guard let (function, count) = counts.max(by: { $0.value < $1.value }), count >= 16,
              count * 4 >= symbols.count else { return nil }
        return (function, count)
    }
}
