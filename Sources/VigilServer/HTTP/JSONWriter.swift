import Foundation

/// Writes compact JSON into a byte buffer without `JSONEncoder`'s reflection, for answers on
/// hot paths (the ingest response, metrics) where encoding cost matters.
///
/// The caller keeps the structure well formed (`key` inside objects, balanced begin/end); the
/// writer adds commas and escapes strings. Non-finite numbers are written as `null`.
public struct JSONWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]

    /// An empty writer.
    public init() {
        bytes.reserveCapacity(256)
    }

    /// The output as `Data`.
    public var data: Data { Data(bytes) }

    /// The output as a `String`.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Opens an object.
    public mutating func beginObject() { separate(); bytes.append(0x7B); needsComma.append(false) }
    /// Closes an object.
    public mutating func endObject() { needsComma.removeLast(); bytes.append(0x7D) }
    /// Opens an array.
    public mutating func beginArray() { separate(); bytes.append(0x5B); needsComma.append(false) }
    /// Closes an array.
    public mutating func endArray() { needsComma.removeLast(); bytes.append(0x5D) }

    /// Writes an object key; the next value belongs to it.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(0x3A)
        needsComma[needsComma.count - 1] = false
    }

    /// Writes a string value.
    public mutating func string(_ value: String) { separate(); appendQuoted(value) }
    /// Writes a string value or `null`.
    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }
    /// Writes an integer.
    public mutating func number(_ value: Int64) { separate(); bytes.append(contentsOf: String(value).utf8) }
    /// Writes an integer.
    public mutating func number(_ value: Int) { number(Int64(value)) }
    /// Writes a floating-point number (`null` when not finite).
    public mutating func number(_ value: Double) {
        separate()
        guard value.isFinite else { bytes.append(contentsOf: "null".utf8); return }
        if value == value.rounded(), abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }
    /// Writes a boolean.
    public mutating func bool(_ value: Bool) { separate(); bytes.append(contentsOf: (value ? "true" : "false").utf8) }
    /// Writes `null`.
    public mutating func null() { separate(); bytes.append(contentsOf: "null".utf8) }
    /// Writes already-encoded JSON as one value; the caller vouches that it is valid.
    public mutating func raw<Bytes: Collection>(_ json: Bytes) where Bytes.Element == UInt8 {
        separate()
        bytes.append(contentsOf: json)
    }

    private mutating func separate() {
        if needsComma[needsComma.count - 1] { bytes.append(0x2C) }
        needsComma[needsComma.count - 1] = true
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ text: String) {
        var text = text
        // One contiguous pass (a native string's bytes in place) rather than through `utf8`'s
        // iterator, which cost a fifth of writing a stack's frames.
        text.withUTF8 { utf8 in
            bytes.append(0x22)
            // Most strings (ids, names, addresses) need no escape: copied in one go.
            var clean = true
            for byte in utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                clean = false
                break
            }
            if clean {
                bytes.append(contentsOf: utf8)
                bytes.append(0x22)
                return
            }
            // Runs between escapes are copied in one go: JSON held as a string (an event's
            // payload in a ClickHouse row) has a quote every few bytes, and appending byte by byte
            // cost a capacity check each.
            bytes.reserveCapacity(bytes.count + utf8.count + utf8.count / 4 + 2)
            var run = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                if run < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index])) }
                run = index + 1
                switch byte {
                case 0x22: bytes.append(0x5C); bytes.append(0x22)
                case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
                case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
                case 0x0D: bytes.append(0x5C); bytes.append(0x72)
                case 0x09: bytes.append(0x5C); bytes.append(0x74)
                default:
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30])
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0xF)])
                }
            }
            if run < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<utf8.count])) }
            bytes.append(0x22)
        }
    }
}
