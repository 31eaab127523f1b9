import Foundation

/// Unbuffered standard input and output for batch commands: whole lines in, bytes out, with
/// `write(2)`/`read(2)` so nothing sits in a stdio buffer while the other end waits.
enum StandardStreams {
    /// Writes all of `bytes` to standard output.
    static func write(_ buffer: UnsafeRawBufferPointer) {
        do {
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// Calls `line` for every line (or space-separated word) of standard input, and `flush`
    /// whenever the lines read so far are all answered, before blocking for more input.
    static func readLines(_ line: (UnsafeBufferPointer<UInt8>) -> Void, flush: () -> Void) {
        // One buffer: a partial line at the end of a read moves to the front, the next read
        // appends after it. Lines longer than the buffer grow it.
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var filled = 0
        while true {
            if filled == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
            let count = buffer.withUnsafeMutableBytes { Foundation.read(0, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            if count == 0 { break }
            let end = filled + count
            var start = 0
            buffer.withUnsafeBufferPointer { bytes in
                var index = filled
                while index < end {
                    let byte = bytes[index]
                    if byte == 10 || byte == 32 || byte == 9 {
                        if index > start { line(UnsafeBufferPointer(rebasing: bytes[start..<index])) }
                        start = index + 1
                    }
                    index += 1
                }
            }
            if start > 0 {
                buffer.withUnsafeMutableBytes { bytes in
                    if end > start { memmove(bytes.baseAddress!, bytes.baseAddress! + start, end - start) }
                }
            }
            filled = end - start
            flush()
        }
        if filled > 0 { buffer.withUnsafeBufferPointer { line(UnsafeBufferPointer(rebasing: $0[0..<filled])) } }
        flush()
    }
}
