import Foundation

/// Limits and leniency for ``JSONParser``.
public struct JSONParseOptions: Sendable, Hashable {
    /// Deepest nesting of arrays and objects accepted; deeper input fails with
    /// ``JSONParseError/Kind/tooDeep(_:)``. The parser is iterative, so the limit guards memory
    /// and the readers that walk the tree, not the call stack.
    public var maxDepth: Int
    /// Longest number literal accepted, in bytes.
    public var maxNumberLength: Int
    /// When the input ends inside an array or object, close what is open and return the part
    /// read so far (``JSONParseResult/truncated`` is then true) instead of failing.
    public var recoversTruncation: Bool
    /// Accept bytes after the first complete value (``JSONParseResult/endOffset`` says where the
    /// value ended) instead of failing.
    public var allowsTrailingContent: Bool
    /// Replace arrays and objects nested deeper than ``maxDepth`` with `null` (skipping their
    /// bytes) instead of failing; ``JSONParseResult/skippedPaths`` says where.
    public var skipsTooDeep: Bool

    public init(maxDepth: Int = 512, maxNumberLength: Int = 400, recoversTruncation: Bool = false,
                allowsTrailingContent: Bool = false, skipsTooDeep: Bool = false) {
        self.maxDepth = maxDepth
        self.maxNumberLength = maxNumberLength
        self.recoversTruncation = recoversTruncation
        self.allowsTrailingContent = allowsTrailingContent
        self.skipsTooDeep = skipsTooDeep
    }
}

/// What ``JSONParser/parse(_:options:)`` read.
public struct JSONParseResult: Sendable, Hashable {
    /// The value (for truncated input, what was complete before the end).
    public var value: JSONValue
    /// Whether the input ended early and open containers were closed by the parser.
    public var truncated: Bool
    /// Byte offset just past the value.
    public var endOffset: Int
    /// Key paths of the first containers replaced by `null` for nesting too deep (at most 8).
    public var skippedPaths: [String] = []
    /// How many containers were replaced by `null` for nesting too deep.
    public var skippedCount: Int = 0
}

/// Why JSON could not be parsed, with the byte offset, line, column and key path of the fault.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        case unexpectedEnd
        case unexpectedCharacter(String)
        case invalidNumber
        case invalidLiteral
        case invalidEscape
        case tooDeep(Int)
        case trailingContent
        case empty
    }

    /// What went wrong.
    public var kind: Kind
    /// Byte offset of the fault from the start of the parsed bytes.
    public var offset: Int
    /// 1-based line of the fault.
    public var line: Int
    /// 1-based column (in bytes) of the fault.
    public var column: Int
    /// Where in the document the fault is, e.g. `threads[3].frames[12]`; empty at the top level.
    public var keyPath: String

    public var description: String {
        let what: String
        switch kind {
        case .unexpectedEnd: what = "the JSON ends early"
        case .unexpectedCharacter(let character): what = "unexpected \(character)"
        case .invalidNumber: what = "malformed number"
        case .invalidLiteral: what = "malformed literal (expected true, false or null)"
        case .invalidEscape: what = "malformed string escape"
        case .tooDeep(let limit): what = "nested deeper than \(limit) levels"
        case .trailingContent: what = "unexpected content after the JSON value"
        case .empty: what = "no JSON value"
        }
        let place = keyPath.isEmpty ? "" : " at \(keyPath)"
        return "\(what)\(place) (line \(line), column \(column))"
    }
}

/// An iterative JSON parser for untrusted report files.
///
/// Differences from `JSONSerialization`, each needed by crash reports: numbers keep their exact
/// text (64-bit addresses survive), object key order is kept, nesting is limited without
/// recursion (a 10,000-deep MetricKit tree cannot overflow the stack), errors carry a line and
/// a key path, and truncated input can be recovered up to the last complete value.
/// Invalid UTF-8 in strings becomes U+FFFD. Cost: one pass, memory proportional to the input.
public enum JSONParser {
    /// Parses `data` as one JSON value.
    public static func parse(_ data: Data, options: JSONParseOptions = JSONParseOptions()) throws(JSONParseError) -> JSONParseResult {
        let bytes = [UInt8](data)
        return try parse(bytes: bytes, options: options)
    }

    /// Parses `text` as one JSON value.
    public static func parse(_ text: String, options: JSONParseOptions = JSONParseOptions()) throws(JSONParseError) -> JSONParseResult {
        try parse(bytes: Array(text.utf8), options: options)
    }

    /// Parses `bytes` as one JSON value.
    public static func parse(bytes: [UInt8], options: JSONParseOptions = JSONParseOptions()) throws(JSONParseError) -> JSONParseResult {
        var machine = JSONParserMachine(bytes: bytes, options: options)
        return try machine.run()
    }
}

/// The parser's state; a value type driven by ``JSONParser``.
private struct JSONParserMachine {
    enum Container {
        case array([JSONValue])
        case object([JSONMember], pendingKey: String?)
    }

    enum State {
        case value
        case arrayFirst
        case arrayNext
        case objectFirst
        case objectNext
    }

    let bytes: [UInt8]
    let options: JSONParseOptions
    var index = 0
    var stack: [Container] = []
    var skippedPaths: [String] = []
    var skippedCount = 0

    init(bytes: [UInt8], options: JSONParseOptions) {
        self.bytes = bytes
        self.options = options
        // A UTF-8 byte order mark is not JSON, but editors add it.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    mutating func run() throws(JSONParseError) -> JSONParseResult {
        var state = State.value
        skipWhitespace()
        if index >= bytes.count { throw fault(.empty) }
        while true {
            skipWhitespace()
            if index >= bytes.count {
                if options.recoversTruncation, !stack.isEmpty {
                    return finish(closeAll(), truncated: true)
                }
                throw fault(.unexpectedEnd)
            }
            let byte = bytes[index]
            var completed: JSONValue?
            switch state {
            case .value:
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if stack.count >= options.maxDepth, options.skipsTooDeep {
                        if skippedPaths.count < 8 { skippedPaths.append(keyPath()) }
                        skippedCount += 1
                        skipContainer()
                        completed = .null
                    } else if byte == UInt8(ascii: "{") {
                        try push(.object([], pendingKey: nil))
                        index += 1
                        state = .objectFirst
                        continue
                    } else {
                        try push(.array([]))
                        index += 1
                        state = .arrayFirst
                        continue
                    }
                default:
                    guard let scalar = try scalarValue() else {
                        // The input ended inside a scalar; only recovery can go on.
                        if stack.isEmpty { throw fault(.unexpectedEnd) }
                        return finish(closeAll(), truncated: true)
                    }
                    completed = scalar
                }
            case .arrayFirst:
                if byte == UInt8(ascii: "]") {
                    index += 1
                    completed = popCompleted()
                } else {
                    state = .value
                    continue
                }
            case .arrayNext:
                if byte == UInt8(ascii: ",") {
                    index += 1
                    state = .value
                    continue
                } else if byte == UInt8(ascii: "]") {
                    index += 1
                    completed = popCompleted()
                } else {
                    throw fault(.unexpectedCharacter(describe(byte) + ", expected , or ]"))
                }
            case .objectFirst, .objectNext:
                if byte == UInt8(ascii: "}") {
                    index += 1
                    completed = popCompleted()
                } else {
                    if state == .objectNext {
                        guard byte == UInt8(ascii: ",") else {
                            throw fault(.unexpectedCharacter(describe(byte) + ", expected , or }"))
                        }
                        index += 1
                        skipWhitespace()
                        if index >= bytes.count { continue }
                    }
                    guard bytes[index] == UInt8(ascii: "\"") else {
                        throw fault(.unexpectedCharacter(describe(bytes[index]) + ", expected a quoted key"))
                    }
                    guard let key = try stringLiteral() else { continue }
                    skipWhitespace()
                    if index >= bytes.count { continue }
                    guard bytes[index] == UInt8(ascii: ":") else {
                        throw fault(.unexpectedCharacter(describe(bytes[index]) + ", expected :"))
                    }
                    index += 1
                    setPendingKey(key)
                    state = .value
                    continue
                }
            }
            guard let value = completed else { continue }
            if stack.isEmpty {
                skipWhitespace()
                if index < bytes.count, !options.allowsTrailingContent { throw fault(.trailingContent) }
                return finish(value, truncated: false)
            }
            state = append(value)
        }
    }

    func finish(_ value: JSONValue, truncated: Bool) -> JSONParseResult {
        JSONParseResult(value: value, truncated: truncated, endOffset: index, skippedPaths: skippedPaths,
                        skippedCount: skippedCount)
    }

    /// Moves past the array or object starting at `index` without building it (strings are
    /// honoured, so brackets inside them do not count). Stops at the end of input.
    mutating func skipContainer() {
        var depth = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return }
            default: break
            }
        }
    }

    // MARK: Containers

    mutating func push(_ container: Container) throws(JSONParseError) {
        if stack.count >= options.maxDepth { throw fault(.tooDeep(options.maxDepth)) }
        stack.append(container)
    }

    mutating func setPendingKey(_ key: String) {
        guard case .object(let members, _) = stack.removeLast() else { return }
        stack.append(.object(members, pendingKey: key))
    }

    mutating func popCompleted() -> JSONValue {
        switch stack.removeLast() {
        case .array(let elements): return .array(elements)
        case .object(let members, _): return .object(members)
        }
    }

    /// Adds a finished value to the innermost container and returns the state that follows.
    mutating func append(_ value: JSONValue) -> State {
        switch stack.removeLast() {
        case .array(var elements):
            elements.append(value)
            stack.append(.array(elements))
            return .arrayNext
        case .object(var members, let key):
            members.append(JSONMember(key ?? "", value))
            stack.append(.object(members, pendingKey: nil))
            return .objectNext
        }
    }

    /// Closes every open container for truncation recovery; a key without a value is dropped.
    mutating func closeAll() -> JSONValue {
        var value = popCompleted()
        while !stack.isEmpty { _ = append(value); value = popCompleted() }
        return value
    }

    // MARK: Scalars

    /// A string, number or literal at `index`; nil when the input ends inside it and recovery
    /// is on.
    mutating func scalarValue() throws(JSONParseError) -> JSONValue? {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\""):
            guard let text = try stringLiteral() else { return nil }
            return .string(text)
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw fault(.unexpectedCharacter(describe(byte) + ", expected a value"))
        }
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue? {
        let start = Array(word.utf8)
        let count = start.count
        for offset in 0..<count {
            if index + offset >= bytes.count {
                if options.recoversTruncation { index = bytes.count; return nil }
                index += offset
                throw fault(.unexpectedEnd)
            }
            if bytes[index + offset] != start[offset] {
                index += offset
                throw fault(.invalidLiteral)
            }
        }
        index += count
        return value
    }

    mutating func number() throws(JSONParseError) -> JSONValue? {
        let start = index
        func digits(_ machine: inout JSONParserMachine) -> Int {
            var count = 0
            while machine.index < machine.bytes.count, machine.bytes[machine.index] >= 0x30, machine.bytes[machine.index] <= 0x39 {
                machine.index += 1
                count += 1
            }
            return count
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerDigits = digits(&self)
        var valid = integerDigits > 0
        if valid, bytes[start + (bytes[start] == UInt8(ascii: "-") ? 1 : 0)] == UInt8(ascii: "0"), integerDigits > 1 {
            valid = false
        }
        if valid, index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            valid = digits(&self) > 0
        }
        if valid, index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            valid = digits(&self) > 0
        }
        if !valid {
            if index >= bytes.count, options.recoversTruncation { return nil }
            throw fault(index >= bytes.count ? .unexpectedEnd : .invalidNumber)
        }
        if index - start > options.maxNumberLength {
            index = start
            throw fault(.invalidNumber)
        }
        if index >= bytes.count, options.recoversTruncation, !stack.isEmpty {
            // A number cut by the end of input may have lost digits: it is not trustworthy.
            return nil
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// A string literal at `index` (which holds the opening quote); nil when the input ends
    /// inside it and recovery is on.
    mutating func stringLiteral() throws(JSONParseError) -> String? {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            index += 1
        }
        var scratch = [UInt8](bytes[start..<min(index, bytes.count)])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte != UInt8(ascii: "\\") {
                scratch.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scratch.append(0x22)
            case UInt8(ascii: "\\"): scratch.append(0x5C)
            case UInt8(ascii: "/"): scratch.append(0x2F)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = hexUnit() else {
                    if index >= bytes.count { break }
                    throw fault(.invalidEscape)
                }
                var scalar: Unicode.Scalar?
                if (0xD800...0xDBFF).contains(unit) {
                    // A high surrogate needs its low half: \uD83D\uDE00.
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        let save = index
                        index += 2
                        if let low = hexUnit(), (0xDC00...0xDFFF).contains(low) {
                            scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                        } else {
                            index = save
                        }
                    }
                } else if !(0xDC00...0xDFFF).contains(unit) {
                    scalar = Unicode.Scalar(UInt32(unit))
                }
                scratch.append(contentsOf: Array(String(Character(scalar ?? "\u{FFFD}")).utf8))
            default:
                index -= 1
                throw fault(.invalidEscape)
            }
        }
        if options.recoversTruncation { index = bytes.count; return nil }
        throw fault(.unexpectedEnd)
    }

    mutating func hexUnit() -> UInt16? {
        guard index + 4 <= bytes.count else { index = bytes.count; return nil }
        var value: UInt16 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        index += 4
        return value
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    // MARK: Errors

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return String(format: "byte 0x%02x", byte)
    }

    func fault(_ kind: JSONParseError.Kind) -> JSONParseError {
        let end = min(index, bytes.count)
        var line = 1
        var lineStart = 0
        for position in 0..<end where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return JSONParseError(kind: kind, offset: end, line: line, column: end - lineStart + 1, keyPath: keyPath())
    }

    /// The path to the value being parsed, e.g. `threads[2].frames[0].imageOffset`.
    /// Deep paths keep their first and last 12 components around an elision mark.
    func keyPath() -> String {
        var components: [String] = []
        for container in stack {
            switch container {
            case .array(let elements):
                components.append("[\(elements.count)]")
            case .object(let members, let key):
                // After a member's value, the fault is next to that member.
                if let key = key ?? members.last?.key { components.append("." + key) }
            }
        }
        if components.count > 24 {
            let hidden = components.count - 24
            components = Array(components.prefix(12)) + ["…(\(hidden) more levels)…"] + Array(components.suffix(12))
        }
        let path = components.joined()
        return path.hasPrefix(".") ? String(path.dropFirst()) : path
    }
}
