import Foundation

/// A binary image (executable, framework, dylib) loaded in the process.
public struct BinaryImage: Sendable, Hashable, Codable {
    /// File name, e.g. `TouchCanvas`, `UIKitCore`, `libswiftCore.dylib`.
    public var name: String
    /// Build UUID in canonical form (uppercase, dashed), the key to its dSYM, or an ELF GNU
    /// build id in lowercase hex; nil when unknown.
    public var uuid: String?
    /// Architecture, e.g. `arm64`, `arm64e`, `x86_64`.
    public var arch: String?
    /// Load address (the image's Mach-O header in memory).
    public var base: UInt64
    /// Bytes from ``base`` to the end of the image, when known.
    public var size: UInt64?
    /// Path on the device, when known.
    public var path: String?
    /// Bundle identifier (macOS text reports name images by it), when known.
    public var bundleID: String?
    /// Version as written, e.g. `400.9.4 - 1.0.0`.
    public var version: String?
    /// Apple's region type letter from `.ips` (`P` process, `S` shared cache, `A` absolute…).
    public var source: String?
    /// Whether the image belongs to the app rather than to the system.
    public var origin: ImageOrigin

    public init(name: String, uuid: String?, arch: String? = nil, base: UInt64, size: UInt64? = nil,
                path: String? = nil, bundleID: String? = nil, version: String? = nil, source: String? = nil,
                origin: ImageOrigin? = nil) {
        self.name = name
        self.uuid = uuid.flatMap(ImageUUID.normalized)
        self.arch = arch
        self.base = base
        self.size = size
        self.path = path
        self.bundleID = bundleID
        self.version = version
        self.source = source
        var guessed = origin ?? ImageOrigin.guess(name: name, path: path)
        if guessed != .system, let bundleID, BinaryImage.isAppleBundleID(bundleID) { guessed = .system }
        if guessed == .app, let path, ImageOrigin.isSystemPath(path) { guessed = .system }
        self.origin = guessed
    }

    /// Whether `address` falls inside the image (needs a size).
    public func contains(_ address: UInt64) -> Bool {
        guard let size, address >= base else { return false }
        return address - base < size
    }
}

/// Whether an image ships with the app or with the operating system.
public enum ImageOrigin: String, Sendable, Hashable, Codable {
    /// Part of the app: its executable, embedded frameworks, extensions.
    case app
    /// Part of the operating system.
    case system
    /// The report gives no way to tell.
    case unknown

    /// Judges an image by its path (app bundles live under `/Bundle/Application/`, `.app/`;
    /// the system under `/System/`, `/usr/lib/`…) or, without a path, by well-known system
    /// library and framework names.
    public static func guess(name: String, path: String?) -> ImageOrigin {
        if let path, !path.isEmpty, path != "???" {
            if isSystemPath(path) { return .system }
            if path.containsBytes("/Bundle/Application/") || path.containsBytes(".app/") || path.hasSuffix(".app")
                || path.containsBytes("/Containers/") || path.hasPrefix("/Users/") || path.hasPrefix("/Applications/")
                || path.hasPrefix("/private/var/") || path.hasPrefix("/var/") {
                return .app
            }
            return .unknown
        }
        return SystemLibraryNames.isSystem(name) ? .system : .unknown
    }

    /// Whether a path is the operating system's or the developer tools': `/System/`,
    /// `/usr/lib/` and the like, anything inside an Xcode bundle (`…/Xcode*.app/…`), a simulator
    /// runtime (`…/CoreSimulator/…` outside an app container), or `/Library/Developer/`.
    public static func isSystemPath(_ path: String) -> Bool {
        let systemPrefixes = ["/System/", "/usr/lib/", "/usr/libexec/", "/Library/Apple/", "/private/preboot/Cryptexes/",
                              "/System/Cryptexes/", "/Developer/", "/usr/share/", "/sbin/", "/bin/", "/usr/bin/",
                              "/usr/sbin/", "/Applications/Xcode", "/Library/Developer/"]
        if path == "/usr/lib/dyld" || systemPrefixes.contains(where: { path.hasPrefix($0) }) { return true }
        // Xcode wherever it is installed: /Applications/Xcode-16.2.app/…, ~/Downloads/Xcode_beta.app/….
        if let range = path.range(of: "/Xcode"), let appEnd = path[range.upperBound...].range(of: ".app/"),
           !path[range.upperBound..<appEnd.lowerBound].contains("/") {
            return true
        }
        // Simulator runtimes; an app installed in a simulated device lives in its data container.
        if path.containsBytes("/CoreSimulator/") && !path.containsBytes("/data/Containers/")
            && !path.containsBytes("/data/Library/") {
            return true
        }
        return false
    }
}

extension BinaryImage {
    /// Whether a bundle identifier is Apple's (`com.apple.…`), as macOS reports name images.
    public static func isAppleBundleID(_ bundleID: String) -> Bool {
        bundleID.hasPrefix("com.apple.") || bundleID == "com.apple"
    }
}

/// Canonical spelling of build UUIDs.
public enum ImageUUID {
    /// Uppercase `8-4-4-4-12` form of a UUID written with or without dashes, braces or angle
    /// brackets; nil when `text` is not 32 hex digits. The all-zero UUID (Apple's placeholder
    /// for unknown images) is nil too.
    public static func canonical(_ text: String) -> String? {
        // ASCII text (every real identifier) byte by byte; anything else by characters below.
        if let ascii = canonicalASCII(text) { return ascii }
        var digits: [Character] = []
        digits.reserveCapacity(32)
        for character in text where character != "-" && character != "<" && character != ">" && character != " "
            && character != "{" && character != "}" {
            guard character.isHexDigit else { return nil }
            digits.append(Character(character.uppercased()))
        }
        guard digits.count == 32, digits.contains(where: { $0 != "0" }) else { return nil }
        let text = String(digits)
        let parts = [text.prefix(8), text.dropFirst(8).prefix(4), text.dropFirst(12).prefix(4),
                     text.dropFirst(16).prefix(4), text.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// ``canonical(_:)`` for ASCII text, without building a `Character` per digit; nil when the
    /// text is not all ASCII (then the caller decides by characters), `.some(nil)` when it is
    /// ASCII but no UUID.
    private static func canonicalASCII(_ text: String) -> String?? {
        var digits: [UInt8] = []
        digits.reserveCapacity(36)
        var nonZero = false
        for byte in text.utf8 {
            guard byte < 0x80 else { return nil }
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: " "), UInt8(ascii: "{"), UInt8(ascii: "}"):
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"):
                digits.append(byte)
            case UInt8(ascii: "a")...UInt8(ascii: "f"):
                digits.append(byte - 0x20)
            default:
                // Not a hex digit; the rest may still be non-ASCII, which the character path judges.
                return text.utf8.allSatisfy { $0 < 0x80 } ? .some(nil) : nil
            }
            if byte != UInt8(ascii: "0") { nonZero = true }
            if digits.count > 32 { return text.utf8.allSatisfy { $0 < 0x80 } ? .some(nil) : nil }
        }
        guard digits.count == 32, nonZero else { return .some(nil) }
        for dash in [8, 13, 18, 23] { digits.insert(UInt8(ascii: "-"), at: dash) }
        return .some(String(decoding: digits, as: UTF8.self))
    }

    /// ``canonical(_:)`` for 32-digit UUIDs; other hex identifiers of 8 to 128 digits (ELF
    /// GNU build ids) in lowercase; nil for anything else and for all-zero identifiers.
    public static func normalized(_ text: String) -> String? {
        if let uuid = canonical(text) { return uuid }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 8, trimmed.count <= 128, trimmed.allSatisfy(\.isHexDigit),
              trimmed.contains(where: { $0 != "0" }) else { return nil }
        return trimmed.lowercased()
    }

    /// Lowercase hex without dashes, the way Apple's text reports write UUIDs.
    public static func compact(_ uuid: String) -> String {
        uuid.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
