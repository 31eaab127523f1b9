import Foundation

/// Shortens a demangled Swift name to the form Xcode and `swift-demangle --simplified` show:
/// no module names, argument labels instead of parameter types, no return or property types,
/// and short phrases for thunks and specializations:
///
///     Shop.Cart.add(_: Shop.Item, count: Swift.Int) -> ()           → Cart.add(_:count:)
///     closure #1 () -> () in Shop.Cart.add(Shop.Item) -> ()          → closure #1 in Cart.add(_:)
///     generic specialization <Swift.Int> of Shop.Box.get() -> A      → specialized Box.get()
///
/// It works on the text the runtime's demangler produces, so unusual forms (reabstraction
/// thunks, nested generic signatures) may keep some detail; it never loses the function's name.
enum SwiftNameSimplifier {
    static func simplify(_ demangled: String) -> String {
        var text = Substring(demangled)
        var prefix = ""
        // Leading phrases, possibly several ("partial apply for specialized …").
        phrases: while true {
            for (phrase, replacement) in leadingPhrases where text.hasPrefix(phrase) {
                prefix += replacement
                text = text.dropFirst(phrase.count)
                continue phrases
            }
            for head in ["generic specialization ", "function signature specialization ", "generic partial specialization ",
                         "generic not re-abstracted specialization "] where text.hasPrefix(head) {
                let rest = text.dropFirst(head.count)
                if rest.hasPrefix("<"), let end = matchingClose(rest, open: "<", close: ">") {
                    let after = rest[rest.index(after: end)...]
                    if after.hasPrefix(" of ") {
                        prefix += "specialized "
                        text = after.dropFirst(4)
                        continue phrases
                    }
                }
            }
            if let range = text.range(of: " value witness for "), !text[..<range.lowerBound].contains(" ") {
                prefix += text[..<range.lowerBound] + " for "
                text = text[range.upperBound...]
                continue
            }
            break
        }
        if text.hasPrefix("protocol witness for "), let conformance = text.range(of: " in conformance ") {
            let witnessed = text[text.index(text.startIndex, offsetBy: "protocol witness for ".count)..<conformance.lowerBound]
            var conformer = text[conformance.upperBound...]
            if let colon = conformer.range(of: " : ") { conformer = conformer[..<colon.lowerBound] }
            return prefix + "protocol witness for " + entity(witnessed) + " in conformance " + stripModules(conformer)
        }
        return prefix + entity(text)
    }

    private static let leadingPhrases: [(String, String)] = [
        ("partial apply forwarder for ", "partial apply for "),
        ("@objc ", "@objc "),
        ("static ", "static "),
        ("merged ", "merged "),
        ("dispatch thunk of ", "dispatch thunk of "),
        ("method descriptor for ", "method descriptor for "),
        ("type metadata accessor for ", "type metadata accessor for "),
        ("type metadata instantiation function for ", "type metadata instantiation function for "),
        ("type metadata completion function for ", "type metadata completion function for "),
        ("outlined copy of ", "outlined copy of "),
        ("outlined consume of ", "outlined consume of "),
        ("outlined destroy of ", "outlined destroy of "),
        ("outlined init with take of ", "outlined init with take of "),
        ("outlined init with copy of ", "outlined init with copy of "),
        ("outlined assign with take of ", "outlined assign with take of "),
        ("outlined assign with copy of ", "outlined assign with copy of "),
        ("variable initialization expression of ", "variable initialization expression of "),
        ("lazy protocol witness table accessor for type ", "lazy protocol witness table accessor for type "),
        ("default argument ", "default argument "),
    ]

    /// `closure #1 (…) -> … in Outer…` → `closure #1 in Outer'`, recursively; else one declaration.
    private static func entity(_ text: Substring) -> String {
        for kind in ["closure #", "implicit closure #", "localFunc #"] where text.hasPrefix(kind) {
            // "closure #1 <signature> in <outer>": find " in " at bracket depth 0.
            guard let number = text.dropFirst(kind.count).firstIndex(of: " ") else { break }
            let label = text[..<number]
            if let inRange = topLevelRange(of: " in ", in: text[number...]) {
                return label + " in " + entity(text[inRange.upperBound...])
            }
        }
        if text.hasPrefix("default argument "), let inRange = topLevelRange(of: " of ", in: text) {
            return text[..<inRange.upperBound] + entity(text[inRange.upperBound...])
        }
        return declaration(text)
    }

    /// `Module.Type.name<G>(label: T, …) async throws -> R` → `Type.name<G>(label:…)`;
    /// `Module.Type.property.getter : T` → `Type.property.getter`.
    private static func declaration(_ input: Substring) -> String {
        var text = input
        if text.hasPrefix("(extension in "), let close = matchingClose(text, open: "(", close: ")") {
            text = text[text.index(after: close)...]
            if text.hasPrefix(":") { text = text.dropFirst() }
        }
        // Split at the parameter list (first top-level "(" after the name) or " : ".
        var depth = 0
        var parameterStart: Substring.Index?
        var typeAnnotation: Substring.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "<" || character == "[" { depth += 1 }
            if character == ">" || character == "]" { depth -= 1 }
            if depth == 0 {
                if character == "(" {
                    // "(x in _HASH)" private discriminators are part of the name, not parameters.
                    if let close = matchingClose(text[index...], open: "(", close: ")"),
                       text[index..<close].contains(" in _") {
                        index = text.index(after: close)
                        continue
                    }
                    parameterStart = index
                    break
                }
                if text[index...].hasPrefix(" : ") { typeAnnotation = index; break }
            }
            index = text.index(after: index)
        }
        if let parameterStart, let close = matchingClose(text[parameterStart...], open: "(", close: ")") {
            let name = stripModules(text[..<parameterStart])
            let parameters = text[text.index(after: parameterStart)..<close]
            return name + "(" + labels(parameters) + ")"
        }
        if let typeAnnotation { return stripModules(text[..<typeAnnotation]) }
        return stripModules(text)
    }

    /// `label: Type, Type` → `label:_:`.
    private static func labels(_ parameters: Substring) -> String {
        let trimmed = parameters.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return "" }
        var result = ""
        for parameter in splitTopLevel(Substring(trimmed), separator: ",") {
            let part = parameter.trimmingCharacters(in: .whitespaces)
            if let colon = part.range(of: ": "), !part[..<colon.lowerBound].contains(where: { "(<[ ".contains($0) }) {
                result += part[..<colon.lowerBound] + ":"
            } else {
                result += "_:"
            }
        }
        return result
    }

    /// Removes the module from a qualified name (`Shop.Cart.add` → `Cart.add`), replaces private
    /// discriminators (`(total in _A01…)` → `total`) and drops modules inside generic arguments.
    static func stripModules(_ text: Substring) -> String {
        var name = String(text)
        // (name in _DISCRIMINATOR) → name
        while let range = name.range(of: " in _") {
            guard let open = name[..<range.lowerBound].lastIndex(of: "("),
                  let close = name[range.upperBound...].firstIndex(of: ")") else { break }
            let inner = name[name.index(after: open)..<range.lowerBound]
            name.replaceSubrange(open...close, with: inner)
        }
        let components = splitTopLevel(Substring(name), separator: ".")
        if components.count > 1 {
            name = components.dropFirst().joined(separator: ".")
        }
        return name
    }

    /// Splits at `separator` outside (), <> and [].
    private static func splitTopLevel(_ text: Substring, separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if "(<[".contains(character) { depth += 1 }
            if ")>]".contains(character), depth > 0 {
                // "->" is an arrow, not a closing bracket.
                if !(character == ">" && index > text.startIndex && text[text.index(before: index)] == "-") { depth -= 1 }
            }
            if character == separator, depth == 0 {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        parts.append(text[start...])
        return parts
    }

    /// The range of `needle` at bracket depth 0 in `text`.
    private static func topLevelRange(of needle: String, in text: Substring) -> Range<Substring.Index>? {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if "(<[".contains(character) { depth += 1 }
            if ")]".contains(character) { depth -= 1 }
            if character == ">", index > text.startIndex, text[text.index(before: index)] != "-" { depth -= 1 }
            if depth == 0, text[index...].hasPrefix(needle) { return index..<text.index(index, offsetBy: needle.count) }
            index = text.index(after: index)
        }
        return nil
    }

    /// The index of the bracket closing the one `text` starts with.
    private static func matchingClose(_ text: Substring, open: Character, close: Character) -> Substring.Index? {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == open { depth += 1 }
            if character == close, !(close == ">" && index > text.startIndex && text[text.index(before: index)] == "-") {
                depth -= 1
                if depth == 0 { return index }
            }
            index = text.index(after: index)
        }
        return nil
    }
}
