/// A growable byte buffer in manually managed memory, for the batch output path: appending
/// copies bytes with `memcpy` and touches no reference counts (unlike `[UInt8]` slices).
/// Not thread-safe; one per formatter.
final class ByteArena {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes appended so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    @inline(__always)
    private func reserve(_ additional: Int) {
        guard count + additional > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < count + additional { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    func append(_ source: UnsafePointer<UInt8>, count length: Int) {
        reserve(length)
        if length <= 32 {
            // Names and file names are short: a byte loop beats a memmove call.
            var index = 0
            while index < length {
                base[count + index] = source[index]
                index += 1
            }
        } else {
            (base + count).update(from: source, count: length)
        }
        count += length
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { if let start = $0.baseAddress { append(start, count: $0.count) } }
    }

    func append(_ text: String) {
        var copy = text
        copy.withUTF8 { if let start = $0.baseAddress { append(start, count: $0.count) } }
    }

    /// Appends bytes `start ..< start + length` of `other`.
    @inline(__always)
    func append(from other: ByteArena, start: Int, length: Int) {
        append(other.base + start, count: length)
    }

    func removeAll() { count = 0 }
}
