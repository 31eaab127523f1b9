/// Renders ``JSONValue`` trees as JSON text.
///
/// Members are written in their stored order and numbers as their stored text, so a parsed
/// document writes back with the same values. Non-finite numbers cannot occur (the parser
/// keeps literals, writers build numbers from integers).
public struct JSONWriter: Sendable {
    /// Write `/` as `\/`, as Apple's crash reporter does in `.ips` files.
    public var escapesSlashes: Bool
    /// Put a space on both sides of `:` in pretty output (`"key" : value`), Apple's style.
    public var spacedColons: Bool
    /// Spaces per indentation level in pretty output.
    public var indentWidth: Int

    public init(escapesSlashes: Bool = false, spacedColons: Bool = false, indentWidth: Int = 2) {
        self.escapesSlashes = escapesSlashes
        self.spacedColons = spacedColons
        self.indentWidth = indentWidth
    }

    /// The value on one line, no spaces.
    public func compact(_ value: JSONValue) -> String {
        var out = ""
        writeCompact(value, into: &out)
        return out
    }

    /// The value with one member or element per line, nested values indented; containers
    /// deeper than `expandedDepth` levels stay on one line.
    public func pretty(_ value: JSONValue, expandedDepth: Int = .max) -> String {
        var out = ""
        writePretty(value, level: 0, expandedDepth: expandedDepth, into: &out)
        return out
    }

    /// Appends `value` compactly to `out`.
    public func writeCompact(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): writeString(text, into: &out)
        case .array(let elements):
            out += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { out += "," }
                writeCompact(element, into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (position, member) in members.enumerated() {
                if position > 0 { out += "," }
                writeString(member.key, into: &out)
                out += ":"
                writeCompact(member.value, into: &out)
            }
            out += "}"
        }
    }

    private func writePretty(_ value: JSONValue, level: Int, expandedDepth: Int, into out: inout String) {
        guard level < expandedDepth else { return writeCompact(value, into: &out) }
        let inner = String(repeating: " ", count: (level + 1) * indentWidth)
        let outer = String(repeating: " ", count: level * indentWidth)
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out += "[\n"
            for (position, element) in elements.enumerated() {
                out += inner
                writePretty(element, level: level + 1, expandedDepth: expandedDepth, into: &out)
                out += position + 1 < elements.count ? ",\n" : "\n"
            }
            out += outer + "]"
        case .object(let members) where !members.isEmpty:
            out += "{\n"
            for (position, member) in members.enumerated() {
                out += inner
                writeString(member.key, into: &out)
                out += spacedColons ? " : " : ": "
                writePretty(member.value, level: level + 1, expandedDepth: expandedDepth, into: &out)
                out += position + 1 < members.count ? ",\n" : "\n"
            }
            out += outer + "}"
        default:
            writeCompact(value, into: &out)
        }
    }

    /// Appends `text` as a quoted, escaped JSON string.
    public func writeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += escapesSlashes ? "\\/" : "/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
