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
    let imageSuffix: [UInt8]
    let nameStyle: NameStyle
    private var names: [Int: [UInt8]] = [:]
    private var fileNames: [Int: [UInt8]] = [:]
    private var frames: [FrameReference] = []

    init(cache: SymCache, imageName: String, nameStyle: NameStyle) {
        self.cache = cache
        imageSuffix = Array(" (in \(imageName))".utf8)
        self.nameStyle = nameStyle
        frames.reserveCapacity(64)
    }

    /// Appends the answer for `relativeAddress` (`address` is what the user typed, echoed when
    /// nothing is found): one line, or with `inline` one line per frame and an empty line.
    mutating func append(address: UInt64, relativeAddress: UInt64, isReturnAddress: Bool, inline: Bool,
                         to output: inout [UInt8]) {
        frames.removeAll(keepingCapacity: true)
        let count = cache.frameReferences(relativeAddress: relativeAddress, isReturnAddress: isReturnAddress, into: &frames)
        if count == 0 {
            AtosFormatter.appendHex(address, to: &output)
            output.append(contentsOf: imageSuffix)
            output.append(UInt8(ascii: "\n"))
            if inline { output.append(UInt8(ascii: "\n")) }
            return
        }
        let shown = inline ? 0..<count : (count - 1)..<count // without --inline, the outermost (the real function)
        for index in shown {
            let frame = frames[index]
            if let function = frame.function {
                output.append(contentsOf: name(function))
            } else {
                output.append(contentsOf: "??".utf8)
            }
            output.append(contentsOf: imageSuffix)
            if !inline, count > 1 {
                // atos without -i shows the outermost function with the innermost location.
                appendLocation(frames[0], function: frame.function, relativeAddress: relativeAddress, to: &output)
            } else {
                appendLocation(frame, function: frame.function, relativeAddress: relativeAddress, to: &output)
            }
            output.append(UInt8(ascii: "\n"))
        }
        if inline { output.append(UInt8(ascii: "\n")) }
    }

    private mutating func appendLocation(_ frame: FrameReference, function: Int?, relativeAddress: UInt64, to output: inout [UInt8]) {
        if let file = frame.file {
            output.append(contentsOf: " (".utf8)
            output.append(contentsOf: fileName(file))
            output.append(UInt8(ascii: ":"))
            AtosFormatter.appendDecimal(UInt64(frame.line), to: &output)
            output.append(UInt8(ascii: ")"))
        } else if let function, let start = cache.functionAddress(at: function), relativeAddress >= start {
            output.append(contentsOf: " + ".utf8)
            AtosFormatter.appendDecimal(relativeAddress - start, to: &output)
        }
    }

    private mutating func name(_ index: Int) -> [UInt8] {
        if let cached = names[index] { return cached }
        let spellings = cache.functionNames(at: index)
        let text: String
        switch nameStyle {
        case .raw: text = spellings.raw
        case .full: text = spellings.demangled
        case .atos: text = Demangler.language(of: spellings.raw) == .swift ? spellings.simplified : spellings.demangled
        }
        let bytes = Array(text.utf8)
        names[index] = bytes
        return bytes
    }

    private mutating func fileName(_ index: Int) -> [UInt8] {
        if let cached = fileNames[index] { return cached }
        let path = Array(cache.filePath(at: index).utf8)
        let bytes = path.lastIndex(of: UInt8(ascii: "/")).map { Array(path[($0 + 1)...]) } ?? path
        fileNames[index] = bytes
        return bytes
    }

    static func appendHex(_ value: UInt64, to output: inout [UInt8]) {
        output.append(contentsOf: "0x".utf8)
        var digits: [UInt8] = []
        var remaining = value
        repeat {
            let digit = UInt8(remaining & 15)
            digits.append(digit < 10 ? digit + 48 : digit + 87)
            remaining >>= 4
        } while remaining != 0
        output.append(contentsOf: digits.reversed())
    }

    static func appendDecimal(_ value: UInt64, to output: inout [UInt8]) {
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
