import Foundation

/// malloc stopped the process because its heap was damaged: the crashed thread runs through
/// libmalloc's error paths (`malloc_error_break`, `szone_error`, `free_list_checksum_botch`,
/// `___BUG_IN_CLIENT_OF_LIBMALLOC_POINTER_BEING_FREED_WAS_NOT_ALLOCATED`, nano and xzone
/// allocator errors), or the logged message is malloc's (`pointer being freed was not
/// allocated`, `incorrect checksum for freed object`). Ranked above ``AbortRule``: the abort
/// is only how malloc reports the damage.
public struct HeapCorruptionRule: DiagnosisRule {
    public let id = "heap-corruption"
    public let priority = 45

    public init() {}

    /// Functions that only run when libmalloc found a damaged heap.
    static let errorSymbols: Set<String> = [
        "malloc_error_break", "szone_error", "free_list_checksum_botch", "malloc_zone_error", "malloc_report",
        "malloc_vreport", "__malloc_report", "___BUG_IN_CLIENT_OF_LIBMALLOC_POINTER_BEING_FREED_WAS_NOT_ALLOCATED",
        "__BUG_IN_CLIENT_OF_LIBMALLOC_POINTER_BEING_FREED_WAS_NOT_ALLOCATED", "nanov2_guard_corruption_detected",
        "nano_free_definite_size_with_corruption_check", "_nano_free_check_corruption", "tiny_free_list_remove_ptr",
        "free_tiny_botch", "small_free_list_remove_ptr", "malloc_zone_check_fail",
    ]

    /// Prefixes of libmalloc functions that report corruption in newer allocators.
    static func isErrorSymbol(_ name: String) -> Bool {
        if errorSymbols.contains(name) { return true }
        if name.hasPrefix("___BUG_IN_CLIENT_OF_LIBMALLOC") || name.hasPrefix("__BUG_IN_CLIENT_OF_LIBMALLOC") { return true }
        if name.hasPrefix("nano_free") || name.hasPrefix("_nano_free") || name.hasPrefix("nanov2_") && name.contains("corrupt") {
            return true
        }
        // The xzone allocator (iOS 18, macOS 15): _xzm_xzone_malloc_freelist_outlined, _xzm_free_abort…
        if name.hasPrefix("_xzm_") || name.hasPrefix("xzm_") {
            return name.contains("abort") || name.contains("corrupt") || name.contains("error") || name.contains("outlined")
                || name.contains("invalid") || name.contains("free")
        }
        return false
    }

    static let messages = ["pointer being freed was not allocated", "pointer being realloc'd was not allocated",
                           "incorrect checksum for freed object", "Corruption of free object", "BUG IN CLIENT OF LIBMALLOC",
                           "Heap corruption detected", "double free", "malloc: *** error", "freed pointer was not the last allocation",
                           "Non-aligned pointer being freed"]

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        let report = facts.report
        guard report.kind == .crash else { return nil }
        var evidence: [Evidence] = []
        var marker: (thread: Int, frame: Int, name: String)?
        if let crashed = facts.crashedThreadIndex {
            let symbols = facts.symbols(crashed)
            if let index = symbols.prefix(24).firstIndex(where: { $0.map(Self.isErrorSymbol) ?? false }) {
                marker = (crashed, index, symbols[index] ?? "")
            }
        }
        let message = facts.messages.first { message in Self.messages.contains(where: { message.contains($0) }) }
        guard marker != nil || message != nil else { return nil }
        if let signal = facts.signal ?? facts.exceptionType {
            evidence.append(Evidence("exception", signal, "malloc stopped the process when it found the damage"))
        }
        if let message { evidence.append(Evidence("applicationSpecificInfo", message, "malloc's own description of the damage")) }
        var caller: String?
        if let marker {
            if let item = facts.frameEvidence(thread: marker.thread, frame: marker.frame, "libmalloc's error path: the heap was found damaged") {
                evidence.append(item)
            }
            let outer = facts.outerFrames(marker.thread)
            if let index = outer.indices.dropFirst(marker.frame + 1).first(where: { report.isInApp(outer[$0]) }) {
                caller = facts.describe(outer[index])
                if let item = facts.frameEvidence(thread: marker.thread, frame: index, "the app's code that freed or allocated") {
                    evidence.append(item)
                }
            }
        }
        var title = "Heap corruption detected by malloc"
        if let message { title += ": \(message.prefix(120))" }
        if let caller { title += " (in \(caller))" }
        let advice = [
            "The damage happened earlier than this stack: a double free, a write past the end of a heap block, or a use after free. The stack shows only where malloc noticed it.",
            "Reproduce with Address Sanitizer (Xcode: Diagnostics › Address Sanitizer); it stops at the bad write or free itself.",
            "Without ASan: Guard Malloc (libgmalloc) or MallocScribble / MallocGuardEdges / MallocStackLogging environment variables, and the Zombies instrument for objects used after release.",
        ]
        return Diagnosis(ruleID: id, category: .heapCorruption, title: title, confidence: marker != nil ? .high : .medium,
                         evidence: evidence, advice: advice,
                         facts: [ReportField(name: "mallocFunction", value: marker?.name ?? "")].filter { !$0.value.isEmpty })
    }
}
