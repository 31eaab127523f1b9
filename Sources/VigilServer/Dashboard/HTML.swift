/// HTML text built by appending: ``text(_:)`` escapes, ``raw(_:)`` does not and is used only
/// for markup written in this module. Every value that came from outside (an event, a
/// project name, a query argument) goes through ``text(_:)`` or ``HTML/escape(_:)``.
public struct HTML {
    /// The markup so far.
    public private(set) var output = ""

    /// An empty document.
    public init() {
        output.reserveCapacity(16 * 1024)
    }

    /// Appends markup written by this module.
    public mutating func raw(_ markup: String) { output += markup }

    /// Appends `value` escaped for text and attribute contexts.
    public mutating func text(_ value: String) { output += HTML.escape(value) }

    /// Escapes `&`, `<`, `>`, `"` and `'`, so the result is safe in element content and in
    /// quoted attribute values.
    public static func escape(_ value: String) -> String {
        var needs = false
        for byte in value.utf8 where byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27 {
            needs = true
            break
        }
        guard needs else { return value }
        var out = ""
        out.reserveCapacity(value.utf8.count + 16)
        for character in value.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Percent-encodes `value` for a URL query component.
    public static func queryComponent(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E:
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
