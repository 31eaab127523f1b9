/// Shortens a demangled C++ name to its qualified name without return type, parameter list
/// or qualifiers: `int ns::Cart::add(Item const&, int) const` → `ns::Cart::add`.
enum CxxNameSimplifier {
    static func simplify(_ name: String) -> String {
        let characters = Array(name)
        guard let closing = characters.lastIndex(of: ")") else { return name }
        // Everything after the parameter list must be qualifiers (const, &, noexcept, …).
        let tail = String(characters[(closing + 1)...]).trimmingCharacters(in: .whitespaces)
        let qualifiers: Set<String> = ["const", "volatile", "&", "&&", "noexcept", "const&", "const&&"]
        guard tail.isEmpty || tail.split(separator: " ").allSatisfy({ qualifiers.contains(String($0)) }) else { return name }
        var depth = 0
        var opening: Int?
        var index = closing
        while index >= 0 {
            switch characters[index] {
            case ")": depth += 1
            case "(":
                depth -= 1
                if depth == 0 { opening = index }
            default: break
            }
            if opening != nil { break }
            index -= 1
        }
        guard let opening, opening > 0 else { return name }
        var qualified = Array(characters[..<opening])
        // `operator()` ends with its own parentheses, which are part of the name.
        // Drop a leading return type: the last space outside brackets, unless it belongs to
        // an operator name (`operator new`, `operator delete[]`).
        var bracket = 0
        var split: Int?
        for (position, character) in qualified.enumerated() {
            switch character {
            case "<", "(", "[": bracket += 1
            case ">", ")", "]": bracket -= 1
            case " " where bracket == 0: split = position
            default: break
            }
        }
        if let split {
            let before = String(qualified[..<split])
            if !before.hasSuffix("operator") && !before.hasSuffix("::operator") {
                qualified = Array(qualified[(split + 1)...])
            } else if let earlier = before.lastIndex(of: " ").map({ before.distance(from: before.startIndex, to: $0) }) {
                qualified = Array(qualified[(earlier + 1)...])
            }
        }
        return String(qualified)
    }
}

import Foundation
