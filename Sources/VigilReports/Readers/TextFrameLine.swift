import Foundation

/// One backtrace line of an Apple text report, in any of the layouts devices and Xcode wrote:
///
///     0   libsystem_kernel.dylib        	       0x2315decd4 mach_msg2_trap + 8
///     10  SoloQuest                     	       0x102919620 0x102914000 + 22048
///     0   TouchCanvas   0x0000000102afb3d0 CanvasView.update(_:) + 62416 (CanvasView.swift:231)
///     8   MyCoolApp     0x00000001009d31e0 ViewController.loadData() (in MyCoolApp) (ViewController.swift:21)
///     2   SDL           0x0000000104a3f2c4 SDL_QuitMainThread + 4 (SDL.c:315) [inlined]
struct TextFrameLine: Sendable, Hashable {
    /// The frame number.
    var number: Int
    /// The image column (may contain spaces).
    var imageName: String
    /// The absolute address.
    var address: UInt64
    /// `0xBASE + offset` form: the image load address written on the line.
    var loadAddress: UInt64?
    /// Decimal offset after `+`: from ``loadAddress`` when set, else from the symbol.
    var offset: UInt64?
    /// The function name, when symbolicated.
    var symbol: String?
    /// Source file, when the line has `(File.swift:12)`.
    var file: String?
    /// Source line.
    var line: Int?
    /// Whether the line ends in `[inlined]`.
    var inlined: Bool
    /// Bytes from the symbol's start, for lines that give both `0xBASE + offset` and
    /// `(symbol + n)` (KSCrash's side-by-side layout).
    var symbolOffset: UInt64?

    /// Parses one frame line; nil when it is not one.
    static func parse(_ text: Substring) -> TextFrameLine? {
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" })
        let numberText = trimmed.prefix(while: \.isASCIIDigit)
        guard !numberText.isEmpty, numberText.count <= 7, let number = Int(numberText) else { return nil }
        let afterNumber = trimmed.dropFirst(numberText.count)
        guard let firstSpace = afterNumber.first, firstSpace == " " || firstSpace == "\t" else { return nil }
        // The address is the first whitespace-delimited `0x…` token after the image column.
        var scan = afterNumber.startIndex
        var addressRange: Range<Substring.Index>?
        while scan < afterNumber.endIndex {
            let character = afterNumber[scan]
            if character == " " || character == "\t" {
                let next = afterNumber.index(after: scan)
                if afterNumber[next...].hasPrefix("0x") {
                    let tokenEnd = afterNumber[next...].firstIndex(where: { $0 == " " || $0 == "\t" }) ?? afterNumber.endIndex
                    let token = afterNumber[next..<tokenEnd]
                    let imagePart = afterNumber[afterNumber.startIndex..<scan].trimmingCharacters(in: .whitespaces)
                    if token.count > 2, TextScanning.hex(token) != nil, !imagePart.isEmpty {
                        addressRange = next..<tokenEnd
                        break
                    }
                }
            }
            scan = afterNumber.index(after: scan)
        }
        guard let addressRange, let address = TextScanning.hex(afterNumber[addressRange]) else { return nil }
        let imageName = afterNumber[afterNumber.startIndex..<addressRange.lowerBound].trimmingCharacters(in: .whitespaces)
        var frame = TextFrameLine(number: number, imageName: imageName, address: address, inlined: false)
        frame.parseRemainder(afterNumber[addressRange.upperBound...].trimmingCharacters(in: .whitespaces))
        return frame
    }

    private mutating func parseRemainder(_ remainder: String) {
        var rest = Substring(remainder)
        // KSCrash's side-by-side layout: `0x100034000 + 24756 (-[Crasher crash] + 40)`.
        if rest.hasPrefix("0x"), rest.hasSuffix(")"), let open = Self.matchingOpen(rest) {
            let head = rest[..<open].split(separator: " ")
            if head.count == 3, head[1] == "+", let base = TextScanning.hex(head[0]), let value = UInt64(head[2]) {
                loadAddress = base
                offset = value
                var inner = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)].trimmingCharacters(in: .whitespaces)[...]
                if let plus = inner.range(of: " + ", options: .backwards), let number = UInt64(inner[plus.upperBound...]) {
                    symbolOffset = number
                    inner = inner[..<plus.lowerBound]
                }
                if !inner.isEmpty, inner != "(null)" { symbol = String(inner) } else { symbolOffset = nil }
                return
            }
        }
        if rest.hasSuffix("[inlined]") {
            inlined = true
            rest = rest.dropLast("[inlined]".count).trimmingCharacters(in: .whitespaces)[...]
        }
        // Trailing `(File.swift:12)`.
        if rest.hasSuffix(")"), let open = Self.matchingOpen(rest) {
            let inner = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]
            if let colon = inner.lastIndex(of: ":"), let number = Int(inner[inner.index(after: colon)...]),
               !inner[..<colon].isEmpty {
                file = String(inner[..<colon])
                line = number
                rest = rest[..<open].trimmingCharacters(in: .whitespaces)[...]
            }
        }
        // atos style `(in Image)`.
        if rest.hasSuffix(")"), let open = Self.matchingOpen(rest), rest[open...].hasPrefix("(in ") {
            rest = rest[..<open].trimmingCharacters(in: .whitespaces)[...]
        }
        // ` + 123`.
        if let plus = rest.range(of: " + ", options: .backwards), let value = UInt64(rest[plus.upperBound...].trimmingCharacters(in: .whitespaces)) {
            offset = value
            rest = rest[..<plus.lowerBound].trimmingCharacters(in: .whitespaces)[...]
        } else if let plus = rest.range(of: "+ ", options: .backwards), plus.lowerBound > rest.startIndex,
                  let value = UInt64(rest[plus.upperBound...].trimmingCharacters(in: .whitespaces)) {
            offset = value
            rest = rest[..<plus.lowerBound].trimmingCharacters(in: .whitespaces)[...]
        }
        if rest.isEmpty { return }
        // Unsymbolicated: `0x102914000 + 22048`, or `0 + 64` for an unknown image.
        if rest.hasPrefix("0x"), !rest.contains(" "), let base = TextScanning.hex(rest), offset != nil {
            loadAddress = base
            return
        }
        if rest == "0", offset != nil {
            loadAddress = 0
            return
        }
        symbol = String(rest)
    }

    /// Index of the `(` matching the final `)` of `text`.
    static func matchingOpen(_ text: Substring) -> Substring.Index? {
        var depth = 0
        var index = text.endIndex
        while index > text.startIndex {
            index = text.index(before: index)
            switch text[index] {
            case ")": depth += 1
            case "(":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
        }
        return nil
    }
}

/// One `Binary Images` line of an Apple text report:
///
///     0x102914000 -        0x102e03fff SoloQuest arm64  <11ce3f5762643e8d8a8986894d83b974> /var/…/SoloQuest
///     0x1017ff000 -        0x101885fff +com.AlphaSoft.iTubeDownloader (x86_64)  <7B639009-…> /Users/…
///     0x10864e000 -        0x10ee0ffff +YetAnotherMac x86_64 (400.9.4 - 1.0.0) <2d903291…> /Users/…
struct TextImageLine: Sendable, Hashable {
    var start: UInt64
    var end: UInt64?
    var name: String
    var bundleID: String?
    var arch: String?
    var version: String?
    var uuid: String?
    var path: String?
    /// The `+` mark macOS puts before images that are not part of the OS.
    var markedNonSystem: Bool

    static let architectures: Set<String> = [
        "arm64", "arm64e", "arm64_32", "armv7", "armv7s", "armv7k", "armv6", "arm", "x86_64", "x86_64h", "i386", "ppc", "ppc64",
    ]

    /// Parses one image line; nil when it is not one.
    static func parse(_ text: Substring) -> TextImageLine? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("0x") else { return nil }
        let startToken = trimmed.prefix(while: { !$0.isWhitespace })
        guard let start = TextScanning.hex(startToken) else { return nil }
        var rest = trimmed.dropFirst(startToken.count).drop(while: \.isWhitespace)
        var end: UInt64?
        if rest.hasPrefix("-") {
            rest = rest.dropFirst().drop(while: \.isWhitespace)
            let endToken = rest.prefix(while: { !$0.isWhitespace })
            end = TextScanning.hex(endToken)
            rest = rest.dropFirst(endToken.count).drop(while: \.isWhitespace)
        }
        var namePart = rest
        var uuid: String?
        var path: String?
        // `<uuid>` separates the name columns from the path.
        if let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let inner = rest[rest.index(after: open)..<close]
            if inner.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                uuid = String(inner)
                namePart = rest[..<open]
                let after = rest[rest.index(after: close)...].trimmingCharacters(in: .whitespaces)
                path = after.isEmpty ? nil : after
            }
        }
        var name = namePart.trimmingCharacters(in: .whitespaces)
        let marked = name.hasPrefix("+")
        if marked { name = name.dropFirst().trimmingCharacters(in: .whitespaces) }
        var version: String?
        var arch: String?
        // Trailing `(version)` or `(arch)` groups.
        while name.hasSuffix(")"), let open = TextFrameLine.matchingOpen(Substring(name)) {
            let inner = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
            if architectures.contains(inner) { arch = inner } else { version = inner }
            name = name[..<open].trimmingCharacters(in: .whitespaces)
        }
        let words = name.split(separator: " ")
        if arch == nil, words.count > 1, let last = words.last, architectures.contains(String(last)) {
            arch = String(last)
            name = words.dropLast().joined(separator: " ")
        }
        guard !name.isEmpty else { return nil }
        var bundleID: String?
        if let path, path != "???" {
            let file = (path as NSString).lastPathComponent
            // macOS names images by bundle identifier; the frame lines use the same column.
            if file != name, name.contains("."), !name.hasSuffix(".dylib"), !file.isEmpty {
                bundleID = name
                name = file
            }
        }
        return TextImageLine(start: start, end: end, name: name, bundleID: bundleID, arch: arch, version: version,
                             uuid: uuid, path: path, markedNonSystem: marked)
    }
}
