import Foundation

/// Cleaning function names for matching and for fingerprints.
public enum FunctionName {
    /// The name without decorations a report may add: ` + 123`, ` (in Image)`,
    /// ` (File.swift:12)`, ` [inlined]`, surrounding whitespace.
    public static func base(_ symbol: String) -> String {
        var text = Substring(symbol.trimmingCharacters(in: .whitespaces))
        if text.hasSuffix("[inlined]") { text = text.dropLast("[inlined]".count).trimmingCharacters(in: .whitespaces)[...] }
        if let plus = text.range(of: " + ", options: .backwards), text[plus.upperBound...].allSatisfy(\.isASCIIDigit),
           !text[plus.upperBound...].isEmpty {
            text = text[..<plus.lowerBound]
        }
        // A trailing `(File.swift:12)`, then `(in Image)`.
        if text.hasSuffix(")"), let open = TextFrameLine.matchingOpen(text) {
            let inner = text[text.index(after: open)..<text.index(before: text.endIndex)]
            if let colon = inner.lastIndex(of: ":"), !inner[inner.index(after: colon)...].isEmpty,
               inner[inner.index(after: colon)...].allSatisfy(\.isASCIIDigit), inner.contains(".") {
                text = text[..<open].trimmingCharacters(in: .whitespaces)[...]
            }
        }
        if text.hasSuffix(")"), let open = TextFrameLine.matchingOpen(text), text[open...].hasPrefix("(in ") {
            text = text[..<open].trimmingCharacters(in: .whitespaces)[...]
        }
        return String(text)
    }

    /// A name that stays the same across builds and compilers for grouping: without
    /// decorations, compiler-generated suffixes (`.cold.1`, `.llvm.123`, `.isra.0`),
    /// specialization and thunk prefixes (`specialized `, `merged `, `@objc `,
    /// `partial apply for `), and with whitespace collapsed.
    public static func normalized(_ symbol: String) -> String {
        var text = base(symbol)
        for prefix in ["specialized ", "merged ", "@objc ", "partial apply for ", "partial apply forwarder for ",
                       "reabstraction thunk helper from ", "protocol witness for ", "dispatch thunk of ",
                       "@nonobjc ", "outlined copy of ", "outlined destroy of ", "thunk for "] {
            while text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
        }
        // Compiler-generated clone suffixes: foo.cold.1, foo.llvm.1234, foo.isra.0, foo.part.3.
        for marker in [".cold.", ".llvm.", ".isra.", ".part.", ".constprop."] {
            if let range = text.range(of: marker), text[range.upperBound...].allSatisfy({ $0.isASCIIDigit || $0 == "." }) {
                text = String(text[..<range.lowerBound])
            }
        }
        if text.hasSuffix(".cold") { text.removeLast(".cold".count) }
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}
