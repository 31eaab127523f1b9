import Foundation

/// `EXC_BAD_ACCESS` (`SIGSEGV`, `SIGBUS`): a near-nil address (a nil object's field), an
/// invalid far address (a dangling, corrupt or zombie pointer, a bad function pointer), or a
/// protection violation (`KERN_PROTECTION_FAILURE`), following Apple's "Investigating memory
/// access crashes".
public struct BadAccessRule: DiagnosisRule {
    public let id = "bad-access"
    public let priority = 60

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        let report = facts.report
        let isBadAccess = facts.exceptionType == "EXC_BAD_ACCESS" || facts.signal == "SIGSEGV" || facts.signal == "SIGBUS"
        guard isBadAccess, report.kind == .crash else { return nil }
        let codes = report.exception?.codesText
        let subtype = report.exception?.subtype ?? (codes?.contains(" at ") == true ? codes ?? "" : "")
        let address = report.exception?.faultAddress
        var evidence: [Evidence] = []
        let typeText = [facts.exceptionType, facts.signal].compactMap { $0 }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        if !typeText.isEmpty {
            evidence.append(Evidence("exception.type", typeText.joined(separator: " / "), "a bad memory access"))
        }
        if !subtype.isEmpty { evidence.append(Evidence("exception.subtype", subtype, "the kind of access and its address")) }
        let crashed = facts.crashedThreadIndex
        let top = crashed.flatMap { facts.symbols($0).first ?? nil }
        if let crashed, let item = facts.frameEvidence(thread: crashed, frame: 0, "the faulting instruction") { evidence.append(item) }
        let appFrame = crashed.flatMap { index in facts.activities[index].appFrame ?? firstAppFrame(facts, index) }
        let appText = crashed.flatMap { index in appFrame.map { facts.describe(facts.outerFrames(index)[$0]) } }
        if let crashed, let appFrame, appFrame != 0,
           let item = facts.frameEvidence(thread: crashed, frame: appFrame, "the app's code on the crashing path") {
            evidence.append(item)
        }
        let place = appText.map { " in \($0)" } ?? top.map { " in \($0)" } ?? ""
        let addressText = address.map { "0x" + String($0, radix: 16) } ?? "an unknown address"
        var factsList: [ReportField] = []
        if let address { factsList.append(ReportField(name: "faultAddress", value: "0x" + String(address, radix: 16))) }

        // Below one page is a nil pointer plus a field offset, whichever code the kernel gave:
        // __PAGEZERO is mapped without access, so a nil access can read KERN_PROTECTION_FAILURE.
        if let address, address < facts.pageSize {
            factsList.append(ReportField(name: "accessKind", value: "null"))
            return Diagnosis(
                ruleID: id, category: .nullPointer,
                title: "Null pointer: memory access at \(addressText), \(address == 0 ? "a nil pointer" : "a field of a nil pointer")\(place)",
                confidence: .high, evidence: evidence,
                advice: ["An address below one page (\(facts.pageSize) bytes) is a nil pointer plus a field offset: check which reference on that line can be nil (an implicitly unwrapped optional, an unowned(unsafe) reference, a C or Objective-C pointer).",
                         "Run with Address Sanitizer and Undefined Behavior Sanitizer to catch it earlier."],
                facts: factsList)
        }
        if subtype.contains("KERN_PROTECTION_FAILURE") {
            factsList.append(ReportField(name: "accessKind", value: "protection"))
            return Diagnosis(
                ruleID: id, category: .protectionViolation,
                title: "Protection violation: access to protected memory at \(addressText)\(place)", confidence: .high,
                evidence: evidence + regionEvidence(report),
                advice: ["The address is mapped but protected: a write to read-only memory (a string literal, a constant) or a jump into non-executable data. VM Region Info names the region.",
                         "Run with Address Sanitizer to find the faulty pointer."],
                facts: factsList)
        }
        factsList.append(ReportField(name: "accessKind", value: "invalid"))
        var title = "Invalid pointer: memory access at \(addressText)\(place)"
        var advice = ["The address is not mapped and far from zero: a dangling pointer to freed memory, memory corruption, or a corrupt pointer. Run with Address Sanitizer and the Zombies instrument.",
                      "When many reports show this with different stacks, suspect memory corruption earlier in the run."]
        var confidence = Confidence.medium
        if subtype.contains("possible pointer authentication failure") {
            title = "Invalid pointer: pointer authentication failure at \(addressText)\(place)"
            advice.insert("The pointer's authentication bits were wrong: it was corrupted or used after the object was freed.", at: 0)
            confidence = .high
        } else if let top, ["objc_msgSend", "objc_retain", "objc_release", "objc_storeStrong", "objc_autorelease",
                            "_objc_msgSend_uncached", "objc_loadWeakRetained"].contains(top) {
            title = "Invalid pointer: message to a deallocated object (zombie) in \(top)\(place)"
            advice.insert("\(top) at the top of the stack means an Objective-C message to an object that was already freed: enable Zombie Objects and look for a missing strong reference.", at: 0)
            confidence = .high
        } else if let crashed, let address, let pc = report.threads[crashed].register("pc") ?? report.threads[crashed].register("rip"),
                  pc == address {
            title = "Invalid pointer: jump to \(addressText) (bad function pointer or corrupt object)\(place)"
            advice.insert("The program counter equals the fault address: code called through an invalid function pointer; the link register (lr) shows the caller.", at: 0)
            confidence = .high
        } else if subtype.contains("EXC_ARM_DA_ALIGN") {
            title = "Invalid pointer: misaligned access at \(addressText)\(place)"
        } else if address != nil {
            confidence = .medium
        } else {
            confidence = .low
        }
        return Diagnosis(ruleID: id, category: .invalidPointer, title: title, confidence: confidence,
                         evidence: evidence + regionEvidence(report), advice: advice, facts: factsList)
    }

    func regionEvidence(_ report: CrashReport) -> [Evidence] {
        guard let region = report.vmRegionInfo else { return [] }
        let marked = region.split(separator: "\n").first(where: { $0.contains("--->") }).map(String.init)
        let first = region.split(separator: "\n").first.map(String.init) ?? region
        return [Evidence("vmRegionInfo", (marked ?? first).trimmingCharacters(in: .whitespaces), "where the address lies")]
    }

    func firstAppFrame(_ facts: ReportFacts, _ thread: Int) -> Int? {
        facts.outerFrames(thread).firstIndex(where: { facts.report.isInApp($0) })
    }
}
