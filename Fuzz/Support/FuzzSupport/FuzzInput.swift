/// A cursor over one fuzzer input that hands its bytes out as decisions: which parser, how to
/// split a stream, which field to corrupt. Reading past the end yields zeros and empty arrays,
/// so a target never has to check the input's length and every input, however short, is a
/// complete run.
public struct FuzzInput {
    /// The whole input.
    public let bytes: [UInt8]
    /// Bytes handed out so far.
    public private(set) var offset = 0

    /// The input libFuzzer passed.
    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// An input made of `bytes` (for replaying a case in a test).
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte has been handed out.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// Bytes not handed out yet.
    public var remaining: Int { max(0, bytes.count - offset) }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next two bytes as a little-endian integer.
    public mutating func u16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    /// The next four bytes as a little-endian integer.
    public mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }

    /// The next eight bytes as a little-endian integer.
    public mutating func u64() -> UInt64 { UInt64(u32()) | UInt64(u32()) << 32 }

    /// A number in `range`, from one byte when the range is small, else from four.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        let raw = width <= 256 ? UInt64(byte()) : UInt64(u32())
        return range.lowerBound + Int(raw % width)
    }

    /// Whether the next byte is odd.
    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// The next `count` bytes (fewer at the end of the input).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(0, count))
        guard offset < end else { return [] }
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// Every byte not handed out yet.
    public mutating func rest() -> [UInt8] { bytes(remaining) }
}

/// Stops the run with `message` when `condition` is false: libFuzzer records the input as a
/// crash. Used for invariants, which `assert` would drop in the release build.
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                      file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}
