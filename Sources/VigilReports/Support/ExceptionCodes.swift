import Foundation

/// Reading Apple's exception code fields.
enum ExceptionCodes {
    /// The numbers of an `Exception Codes` value: `0x0000000000000001, 0x0000000000000010`
    /// → [1, 16]. Words that are not hex numbers (`SEGV_MAPERR at 0x88`) give an empty list.
    static func parse(_ text: String) -> [UInt64] {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var codes: [UInt64] = []
        for part in parts {
            guard part.hasPrefix("0x") || part.hasPrefix("0X"), let value = TextScanning.hex(Substring(part)) else { return [] }
            codes.append(value)
        }
        return codes
    }

    /// The faulting address: `… at 0x…` in the subtype or codes, the second code of an
    /// `EXC_BAD_ACCESS`, or the address `VM Region Info` starts with (`0x10 is not in any region`).
    static func faultAddress(_ exception: ExceptionDetails, vmRegionInfo: String? = nil) -> UInt64? {
        if let subtype = exception.subtype, let address = TextScanning.address(in: subtype) { return address }
        if let codes = exception.codesText, let address = TextScanning.address(in: codes) { return address }
        let memoryFault = exception.type == "EXC_BAD_ACCESS" || exception.signal == "SIGSEGV" || exception.signal == "SIGBUS"
        if memoryFault, exception.codes.count >= 2 { return exception.codes[1] }
        if memoryFault, let region = vmRegionInfo?.trimmingCharacters(in: .whitespaces),
           region.contains(" is not in any region") || region.contains(" is in ") {
            return TextScanning.integer(region.prefix(while: { !$0.isWhitespace }))
        }
        return nil
    }
}

/// Finds language exceptions in `Application Specific Information` messages.
enum LanguageExceptionText {
    /// The first Objective-C, C++ or Swift runtime failure message in `lines`.
    static func find(in lines: [String]) -> LanguageException? {
        var cxxFallback: LanguageException?
        for line in lines {
            if let objc = objectiveC(line) { return objc }
            if let swift = swift(line) { return swift }
            if cxxFallback == nil, let cxx = cplusplus(line) { cxxFallback = cxx }
        }
        return cxxFallback
    }

    /// `*** Terminating app due to uncaught exception 'Name', reason: 'Reason'`.
    static func objectiveC(_ line: String) -> LanguageException? {
        guard let marker = line.range(of: "uncaught exception '") else { return nil }
        let rest = line[marker.upperBound...]
        guard let nameEnd = rest.firstIndex(of: "'") else { return nil }
        let name = String(rest[..<nameEnd])
        var reason: String?
        if let reasonStart = rest.range(of: "reason: '") {
            var text = String(rest[reasonStart.upperBound...])
            if let last = text.lastIndex(of: "'") { text = String(text[..<last]) }
            reason = text
        }
        return LanguageException(kind: .objectiveC, name: name, reason: reason)
    }

    /// `libc++abi: terminating due to uncaught exception of type std::runtime_error: boom`.
    static func cplusplus(_ line: String) -> LanguageException? {
        guard let marker = line.range(of: "uncaught exception of type ") else { return nil }
        let rest = line[marker.upperBound...].trimmingCharacters(in: .whitespaces)
        // The type ends at the first ": " outside template brackets.
        var depth = 0
        var splitAt: String.Index?
        var index = rest.startIndex
        while index < rest.endIndex {
            let character = rest[index]
            if character == "<" { depth += 1 } else if character == ">" { depth -= 1 }
            if depth == 0, character == ":", rest.index(after: index) < rest.endIndex, rest[rest.index(after: index)] == " " {
                splitAt = index
                break
            }
            index = rest.index(after: index)
        }
        let name = splitAt.map { String(rest[..<$0]) } ?? rest
        let reason = splitAt.map { String(rest[rest.index($0, offsetBy: 2)...]) }
        if name == "NSException" { return LanguageException(kind: .objectiveC, name: nil, reason: reason) }
        return LanguageException(kind: .cplusplus, name: name, reason: reason)
    }

    /// `Fatal error: …`, `Precondition failed: …`, `Assertion failed: …`, optionally after a
    /// `File.swift:12: ` prefix, and Swift's runtime messages (`Could not cast value…`).
    static func swift(_ line: String) -> LanguageException? {
        for kind in ["Fatal error", "Precondition failed", "Assertion failed", "Unexpectedly found nil"] {
            guard let range = line.range(of: kind) else { continue }
            var message = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
            if message.hasPrefix(":") { message = message.dropFirst().trimmingCharacters(in: .whitespaces) }
            if kind == "Unexpectedly found nil" { return LanguageException(kind: .swift, name: "Fatal error", reason: String(line[range.lowerBound...])) }
            return LanguageException(kind: .swift, name: kind, reason: message.isEmpty ? nil : message)
        }
        for marker in ["Could not cast value of type", "Attempted to read an unowned reference", "Simultaneous accesses to",
                       "SWIFT TASK CONTINUATION MISUSE", "Swift runtime failure"] where line.contains(marker) {
            return LanguageException(kind: .swift, name: "Fatal error", reason: line.trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
