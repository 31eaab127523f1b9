import VigilSymbols

/// Formats symbolicated addresses the way `atos` prints them, into a reusable byte buffer:
/// `function (in Image) (File.swift:42)`, `function (in Image) + 12` without line information,
/// `0x1000 (in Image)` when nothing covers the address.
///
/// Swift names are shown simplified (as Xcode does), C++ names demangled, others as they are.
/// Names and file names are formatted once per function and file of the cache (memoized by
/// index), so a long batch costs a lookup and a few copies per address.
struct AtosFormatter {
    /// Which spelling of function names to print.
    enum NameStyle {
        /// Swift simplified, C++ demangled, others raw (what atos prints).
        case atos
        /// The full demangled name.
        case full
        /// The name as stored (mangled).
        case raw
    }

    let cache: SymCache
    /// " (in Image)", kept in an arena so appending it is a plain copy.
    private let imageSuffix = ByteArena(capacity: 64)
    let nameStyle: NameStyle
    /// Formatted names and file names, one buffer each, with (offset << 32 | length) per
    /// function or file index (`.max`: not formatted yet).
    private let nameBytes = ByteArena()
    private var nameSpans: [UInt64]
    private let fileBytes = ByteArena()
    private var fileSpans: [UInt64]
    private var frames: [FrameReference] = []
    private var counts: [Int] = []
    /// Keeps the cache-warming loads of a batch from being optimized away.
    private(set) var warmth: UInt64 = 0

    init(cache: SymCache, imageName: String, nameStyle: NameStyle) {
        self.cache = cache
        imageSuffix.append(" (in \(imageName))")
        self.nameStyle = nameStyle
        nameSpans = Array(repeating: .max, count: cache.functionCount)
        fileSpans = Array(repeating: .max, count: cache.fileCount)
        frames.reserveCapacity(64)
    }

    /// Appends the answer for `relativeAddress` (`address` is what the user typed, echoed when
    /// nothing is found): one line, or with `inline` one line per frame and an empty line.
    mutating func append(address: UInt64, relativeAddress: UInt64, isReturnAddress: Bool, inline: Bool,
                         to output: ByteArena) {
        frames.removeAll(keepingCapacity: true)
        let count = cache.frameReferences(relativeAddress: relativeAddress, isReturnAddress: isReturnAddress, into: &frames)
        appendFrames(frames[0..<count], address: address, relativeAddress: relativeAddress, inline: inline, to: output)
    }

    /// Appends the answers for a batch of addresses (looked up together, which is faster).
    mutating func append(addresses: [UInt64], relativeAddresses: [UInt64], isReturnAddress: Bool, inline: Bool,
                         to output: ByteArena) {
        frames.removeAll(keepingCapacity: true)
        counts.removeAll(keepingCapacity: true)
        relativeAddresses.withUnsafeBufferPointer {
            cache.frameReferences(relativeAddresses: $0, isReturnAddress: isReturnAddress, into: &frames, counts: &counts)
        }
        // Touch what formatting will read, in tight loops: the loads are independent, so their
        // cache misses overlap instead of stalling the formatting one by one.
        var touched: UInt64 = 0
        for frame in frames { if let function = frame.function { touched &+= nameSpans[function] } }
        for frame in frames {
            if let function = frame.function {
                let span = nameSpans[function]
                if span != .max { touched &+= UInt64(nameBytes.base[Int(span >> 32)]) }
            }
        }
        warmth = touched
        var start = 0
        for (index, count) in counts.enumerated() {
            appendFrames(frames[start..<(start + count)], address: addresses[index], relativeAddress: relativeAddresses[index],
                         inline: inline, to: output)
            start += count
        }
    }

    private mutating func appendFrames(_ frames: ArraySlice<FrameReference>, address: UInt64, relativeAddress: UInt64,
                                       inline: Bool, to output: ByteArena) {
        let count = frames.count
        if count == 0 {
            AtosFormatter.appendHex(address, to: output)
            output.append(from: imageSuffix, start: 0, length: imageSuffix.count)
            output.append(UInt8(ascii: "\n"))
            if inline { output.append(UInt8(ascii: "\n")) }
            return
        }
        let first = frames.startIndex
        // Without --inline, the outermost frame (the real function) with the innermost location.
        let shown = inline ? first..<frames.endIndex : (frames.endIndex - 1)..<frames.endIndex
        for index in shown {
            let frame = frames[index]
            if let function = frame.function {
                appendName(function, to: output)
            } else {
                output.append(63)
                output.append(63)
            }
            output.append(from: imageSuffix, start: 0, length: imageSuffix.count)
            appendLocation(inline ? frame : frames[first], function: frame.function, relativeAddress: relativeAddress, to: output)
            output.append(UInt8(ascii: "\n"))
        }
        if inline { output.append(UInt8(ascii: "\n")) }
    }

    private mutating func appendLocation(_ frame: FrameReference, function: Int?, relativeAddress: UInt64, to output: ByteArena) {
        if let file = frame.file {
            output.append(32)
            output.append(40)
            appendFileName(file, to: output)
            output.append(UInt8(ascii: ":"))
            AtosFormatter.appendDecimal(UInt64(frame.line), to: output)
            output.append(UInt8(ascii: ")"))
        } else if let function, let start = cache.functionAddress(at: function), relativeAddress >= start {
            output.append(32)
            output.append(43)
            output.append(32)
            AtosFormatter.appendDecimal(relativeAddress - start, to: output)
        }
    }

    private mutating func appendName(_ index: Int, to output: ByteArena) {
        var span = nameSpans[index]
        if span == .max {
            let spellings = cache.functionNames(at: index)
            let text: String
            switch nameStyle {
            case .raw: text = spellings.raw
            case .full: text = spellings.demangled
            case .atos: text = Demangler.language(of: spellings.raw) == .swift ? spellings.simplified : spellings.demangled
            }
            span = UInt64(nameBytes.count) << 32 | UInt64(text.utf8.count)
            nameBytes.append(text)
            nameSpans[index] = span
        }
        output.append(from: nameBytes, start: Int(span >> 32), length: Int(span & 0xffff_ffff))
    }

    private mutating func appendFileName(_ index: Int, to output: ByteArena) {
        var span = fileSpans[index]
        if span == .max {
            let path = Array(cache.filePath(at: index).utf8)
            let name = path.lastIndex(of: UInt8(ascii: "/")).map { Array(path[($0 + 1)...]) } ?? path
            span = UInt64(fileBytes.count) << 32 | UInt64(name.count)
            fileBytes.append(name)
            fileSpans[index] = span
        }
        output.append(from: fileBytes, start: Int(span >> 32), length: Int(span & 0xffff_ffff))
    }

    static func appendHex(_ value: UInt64, to output: ByteArena) {
        output.append(48)
        output.append(120)
        var shift = 60
        while shift > 0, (value >> UInt64(shift)) & 15 == 0 { shift -= 4 }
        while shift >= 0 {
            let digit = UInt8((value >> UInt64(shift)) & 15)
            output.append(digit < 10 ? digit + 48 : digit + 87)
            shift -= 4
        }
    }

    static func appendDecimal(_ value: UInt64, to output: ByteArena) {
        if value < 10 {
            output.append(UInt8(value) + 48)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var remaining = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while remaining != 0 {
                buffer[count] = UInt8(remaining % 10) + 48
                remaining /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { output.append(buffer[index]) }
        }
    }
}
