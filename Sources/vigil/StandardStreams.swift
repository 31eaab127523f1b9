import Foundation

/// Unbuffered standard input and output for batch commands: whole lines in, bytes out, with
/// `write(2)`/`read(2)` so nothing sits in a stdio buffer while the other end waits.
enum StandardStreams {
    /// Writes all of `bytes` to standard output.
    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
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
    static func readLines(_ line: (ArraySlice<UInt8>) -> Void, flush: () -> Void) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(0, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            if count == 0 { break }
            pending.append(contentsOf: chunk[0..<count])
            var start = 0
            var index = 0
            while index < pending.count {
                let byte = pending[index]
                if byte == 10 || byte == 32 || byte == 9 {
                    if index > start { line(pending[start..<index]) }
                    start = index + 1
                }
                index += 1
            }
            pending.removeFirst(start)
            flush()
        }
        if !pending.isEmpty { line(pending[...]) }
        flush()
    }
}
