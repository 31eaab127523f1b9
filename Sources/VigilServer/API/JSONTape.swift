import Foundation

/// A JSON document parsed into a flat array of nodes ("tape"): one node per value, containers
/// followed by their descendants, each node knowing its byte range in the input and where its
/// next sibling starts.
///
/// Parsing is strict RFC 8259 (no comments, no trailing commas, no leading zeros, no NaN),
/// iterative with an explicit depth limit, and never traps on any input. Nothing is copied:
/// strings and numbers are byte ranges, turned into values only when a decoder asks for them,
/// and a container's range is its exact JSON text, so a server can store a sub-document as sent.
final class JSONTape {
    /// What a node is.
    enum Kind: UInt8 {
        case object, array, string, number, bool, null
    }

    /// One value.
    struct Node {
        /// The kind.
        var kind: Kind
        /// Strings: contains a backslash escape. Numbers: has a fraction or exponent.
        /// Bools: the value.
        var flag: Bool
        /// Containers: number of children (an object's members count once each).
        var count: Int32
        /// Byte range: a container's whole text (brackets included), a string's contents
        /// (quotes excluded), a number's or literal's text.
        var start: Int32
        var end: Int32
        /// Index of the node after this value and all its descendants.
        var next: Int32
    }

    /// The input.
    let bytes: [UInt8]
    /// The nodes; an object's children alternate key (string node), value.
    let nodes: [Node]

    /// Deepest nesting accepted; deeper input is an error, not a stack overflow.
    static let maxDepth = 256

    /// Parses `bytes` as one JSON value with nothing but whitespace around it.
    init(bytes: [UInt8]) throws(JSONTapeError) {
        guard bytes.count < Int(Int32.max) else { throw JSONTapeError(offset: 0, message: "document larger than 2 GiB") }
        var parser = Parser(bytes: bytes)
        try parser.parse()
        self.bytes = bytes
        nodes = parser.nodes
    }

    // MARK: Parsing

    /// The parser: its nodes are a value of its own until the tape takes them, so appending to
    /// them needs no runtime exclusivity check (a class's stored `var` gets one on every access,
    /// which was 5 % of the ingest threads' time).
    private struct Parser {
        let bytes: [UInt8]
        var nodes: [Node] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
            nodes.reserveCapacity(bytes.count / 8 + 4)
        }

        mutating func parse() throws(JSONTapeError) {
            var index = skipWhitespace(0)
            // Open containers: node index; a member key pending its value is tracked with `expectValueAfterKey`.
            var stack: [Int] = []
            stack.reserveCapacity(16)
            var rootDone = false
            while true {
                if rootDone {
                    index = skipWhitespace(index)
                    guard index == bytes.count else { throw error(index, "unexpected data after the top-level value") }
                    return
                }
                guard index < bytes.count else { throw error(index, "unexpected end of input") }
                // Parse one value at `index`.
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard stack.count < JSONTape.maxDepth else { throw error(index, "nesting deeper than \(JSONTape.maxDepth) levels") }
                    let isObject = byte == UInt8(ascii: "{")
                    nodes.append(Node(kind: isObject ? .object : .array, flag: false, count: 0, start: Int32(index), end: 0, next: 0))
                    stack.append(nodes.count - 1)
                    index = skipWhitespace(index + 1)
                    let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if index < bytes.count, bytes[index] == close {
                        index += 1
                        closeContainer(stack.removeLast(), at: index)
                        // fall through to the separator handling below
                    } else {
                        if isObject { index = try parseKey(index) }
                        continue
                    }
                case UInt8(ascii: "\""):
                    index = try parseString(index)
                case UInt8(ascii: "t"):
                    index = try parseLiteral(index, "true", kind: .bool, flag: true)
                case UInt8(ascii: "f"):
                    index = try parseLiteral(index, "false", kind: .bool, flag: false)
                case UInt8(ascii: "n"):
                    index = try parseLiteral(index, "null", kind: .null, flag: false)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    index = try parseNumber(index)
                default:
                    throw error(index, "unexpected character \(describe(byte))")
                }
                // After a complete value: a separator, a closing bracket, or the end of the document.
                while true {
                    guard let top = stack.last else { rootDone = true; break }
                    nodes[top].count += 1
                    index = skipWhitespace(index)
                    guard index < bytes.count else { throw error(index, "unexpected end of input inside a container") }
                    let isObject = nodes[top].kind == .object
                    let separator = bytes[index]
                    if separator == UInt8(ascii: ",") {
                        index = skipWhitespace(index + 1)
                        if isObject { index = try parseKey(index) }
                        break
                    }
                    if separator == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        index += 1
                        closeContainer(stack.removeLast(), at: index)
                        continue
                    }
                    throw error(index, "expected ',' or '\(isObject ? "}" : "]")', found \(describe(separator))")
                }
            }
        }

        /// Records that container `node` ends just before `end`, after all its descendants.
        mutating func closeContainer(_ node: Int, at end: Int) {
            nodes[node].end = Int32(end)
            nodes[node].next = Int32(nodes.count)
        }

        /// Parses `"key"` and the colon after it; returns the index of the value.
        mutating func parseKey(_ start: Int) throws(JSONTapeError) -> Int {
            guard start < bytes.count, bytes[start] == UInt8(ascii: "\"") else {
                throw error(start, "expected a quoted member name")
            }
            var index = try parseString(start)
            index = skipWhitespace(index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error(index, "expected ':' after a member name") }
            return skipWhitespace(index + 1)
        }

        mutating func parseString(_ start: Int) throws(JSONTapeError) -> Int {
            var index = start + 1
            var escaped = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    nodes.append(Node(kind: .string, flag: escaped, count: 0, start: Int32(start + 1), end: Int32(index),
                                      next: Int32(nodes.count + 1)))
                    return index + 1
                }
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    guard index + 1 < bytes.count else { break }
                    switch bytes[index + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 2
                    case UInt8(ascii: "u"):
                        guard index + 5 < bytes.count, (2...5).allSatisfy({ JSONTape.hexValue(bytes[index + $0]) != nil }) else {
                            throw error(index, "invalid \\u escape")
                        }
                        index += 6
                    default:
                        throw error(index, "invalid escape \\\(describe(bytes[index + 1]))")
                    }
                    continue
                }
                if byte < 0x20 { throw error(index, "unescaped control character in a string") }
                index += 1
            }
            throw error(start, "unterminated string")
        }

        mutating func parseLiteral(_ start: Int, _ word: StaticString, kind: Kind, flag: Bool) throws(JSONTapeError) -> Int {
            let count = word.utf8CodeUnitCount
            guard start + count <= bytes.count else { throw error(start, "unexpected end of input") }
            let matches = word.withUTF8Buffer { expected in
                (0..<count).allSatisfy { bytes[start + $0] == expected[$0] }
            }
            guard matches else { throw error(start, "invalid literal") }
            nodes.append(Node(kind: kind, flag: flag, count: 0, start: Int32(start), end: Int32(start + count), next: Int32(nodes.count + 1)))
            return start + count
        }

        mutating func parseNumber(_ start: Int) throws(JSONTapeError) -> Int {
            var index = start
            func digit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= UInt8(ascii: "0") && bytes[at] <= UInt8(ascii: "9") }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digit(index) else { throw error(index, "expected a digit") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if digit(index) { throw error(index, "leading zeros are not allowed") }
            } else {
                while digit(index) { index += 1 }
            }
            var fractional = false
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                fractional = true
                index += 1
                guard digit(index) else { throw error(index, "expected a digit after '.'") }
                while digit(index) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                fractional = true
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digit(index) else { throw error(index, "expected a digit in the exponent") }
                while digit(index) { index += 1 }
            }
            nodes.append(Node(kind: .number, flag: fractional, count: 0, start: Int32(start), end: Int32(index), next: Int32(nodes.count + 1)))
            return index
        }

        func skipWhitespace(_ start: Int) -> Int {
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return index
                }
            }
            return index
        }

        func error(_ offset: Int, _ message: String) -> JSONTapeError {
            JSONTapeError(offset: offset, message: message)
        }

        func describe(_ byte: UInt8) -> String {
            byte >= 0x20 && byte < 0x7F ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    // MARK: Reading values

    /// The index of the first child of container `node` (valid when its count > 0).
    func firstChild(_ node: Int) -> Int { node + 1 }

    /// The string value of string node `node`, with escapes resolved; lone surrogates become U+FFFD.
    func string(_ node: Int) -> String {
        let item = nodes[node]
        let range = Int(item.start)..<Int(item.end)
        if !item.flag {
            return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        }
        var scalars = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        var index = range.lowerBound
        func flush() {
            if !utf8.isEmpty {
                scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
                utf8.removeAll(keepingCapacity: true)
            }
        }
        func hex4(_ at: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 << 4 | (Self.hexValue(bytes[at + $1]) ?? 0) }
        }
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else { utf8.append(byte); index += 1; continue }
            let code = bytes[index + 1]
            index += 2
            switch code {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var value = hex4(index)
                index += 4
                if (0xD800...0xDBFF).contains(value), index + 6 <= range.upperBound,
                   bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                    let low = hex4(index + 2)
                    if (0xDC00...0xDFFF).contains(low) {
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                }
                flush()
                scalars.append(UnicodeScalar(value) ?? "\u{FFFD}")
            default: utf8.append(code)  // \" \\ \/
            }
        }
        flush()
        return String(scalars)
    }

    /// Whether string node `node` equals `key` (fast path for keys without escapes).
    func stringEquals(_ node: Int, _ key: String) -> Bool {
        let item = nodes[node]
        if item.flag { return string(node) == key }
        let length = Int(item.end - item.start)
        var key = key
        return key.withUTF8 { keyBytes in
            guard keyBytes.count == length else { return false }
            return bytes.withUnsafeBufferPointer { buffer in
                var offset = 0
                let start = Int(item.start)
                while offset < length {
                    if buffer[start + offset] != keyBytes[offset] { return false }
                    offset += 1
                }
                return true
            }
        }
    }

    /// The value of a number node of at most 15 digits and no fraction or exponent.
    func smallInteger(_ node: Int) -> Int64 {
        let item = nodes[node]
        var index = Int(item.start)
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value: Int64 = 0
        while index < Int(item.end) {
            value = value &* 10 &+ Int64(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        return negative ? -value : value
    }

    /// A string node holding exactly a dashed UUID (`8-4-4-4-12` hex digits), parsed from its bytes.
    func uuid(_ node: Int) -> UUID? {
        let start = Int(nodes[node].start)
        guard Int(nodes[node].end) - start == 36 else { return nil }
        var raw = [UInt8](repeating: 0, count: 16)
        var offset = start
        for index in 0..<16 {
            if offset - start == 8 || offset - start == 13 || offset - start == 18 || offset - start == 23 {
                guard bytes[offset] == UInt8(ascii: "-") else { return nil }
                offset += 1
            }
            guard let high = Self.hexValue(bytes[offset]), let low = Self.hexValue(bytes[offset + 1]) else { return nil }
            raw[index] = UInt8(high << 4 | low)
            offset += 2
        }
        return UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                           raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]))
    }

    /// The text of node `node` (a number's digits, a container's JSON).
    func text(_ node: Int) -> Substring {
        let item = nodes[node]
        return Substring(String(decoding: bytes[Int(item.start)..<Int(item.end)], as: UTF8.self))
    }

    /// The exact JSON text of node `node` (strings with their quotes).
    func rawJSON(_ node: Int) -> ArraySlice<UInt8> {
        let item = nodes[node]
        if item.kind == .string { return bytes[Int(item.start - 1)..<Int(item.end + 1)] }
        return bytes[Int(item.start)..<Int(item.end)]
    }

    /// The value node of member `key` in object node `object`, the first one when repeated.
    func member(_ object: Int, _ key: String) -> Int? {
        guard nodes[object].kind == .object else { return nil }
        var child = object + 1
        for _ in 0..<nodes[object].count {
            let value = child + 1
            // The first, as Foundation's JSONDecoder reads repeated names: both decoders must
            // read the same event from the same body.
            if stringEquals(child, key) { return value }
            child = Int(nodes[value].next)
        }
        return nil
    }
}

/// A JSON syntax error with the byte offset where parsing stopped.
struct JSONTapeError: Error, Sendable, CustomStringConvertible {
    var offset: Int
    var message: String
    var description: String { "invalid JSON at byte \(offset): \(message)" }
}
