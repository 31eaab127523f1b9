import Foundation

/// Makes an event safe to store and display: removes control characters, U+2028/U+2029 and
/// other separators from strings, bounds every string and collection, and replaces
/// non-finite numbers.
///
/// Invalid UTF-8 cannot survive into a Swift `String`; bytes from outside are repaired with
/// ``repairUTF8(_:)`` before they are decoded. Pure and cheap for clean input: strings of
/// printable ASCII under their limit are not copied.
public struct EventSanitizer: Sendable {
    /// The bounds in force.
    public var limits: SanitizerLimits

    /// A sanitizer enforcing `limits`. Stateless: one may serve every thread.
    public init(limits: SanitizerLimits = SanitizerLimits()) {
        self.limits = limits
    }

    /// Sanitizes `event` in place and reports what changed.
    @discardableResult
    public func sanitize(_ event: inout Event) -> SanitizerReport {
        var pass = SanitizerPass(limits: limits)
        event.sanitize(&pass)
        return pass.report
    }

    /// Returns a sanitized copy of `event` and what changed.
    public func sanitized(_ event: Event) -> (Event, SanitizerReport) {
        var copy = event
        let report = sanitize(&copy)
        return (copy, report)
    }

    /// Replaces every ill-formed UTF-8 sequence in `data` with U+FFFD; returns `data` unchanged
    /// (no copy) when it is already valid.
    public static func repairUTF8(_ data: Data) -> Data {
        // Decoding repairs: valid input decodes to the same bytes, and any ill-formed sequence
        // becomes U+FFFD, so the bytes differ exactly when a repair was made.
        // (`String(validating:as:)` would say it directly but needs iOS 18 / macOS 15.)
        var decoded = String(decoding: data, as: UTF8.self)
        let unchanged = decoded.utf8.count == data.count && decoded.withUTF8 { repaired in
            data.withUnsafeBytes { original in repaired.elementsEqual(original) }
        }
        return unchanged ? data : Data(decoded.utf8)
    }

    /// Cleans one string the way event fields are cleaned: `multiline` keeps `\n` and `\t`
    /// (messages, reasons) and turns U+2028/U+2029 into `\n`; otherwise every control
    /// character and separator is dropped. The result is cut to `maxBytes` UTF-8 bytes on a
    /// scalar boundary.
    public static func clean(_ text: String, maxBytes: Int, multiline: Bool) -> String {
        var pass = SanitizerPass(limits: SanitizerLimits())
        var copy = text
        pass.clean(&copy, maxBytes: maxBytes, multiline: multiline)
        return copy
    }
}

/// The mutable state of one sanitizer run: the limits and the running report.
public struct SanitizerPass {
    /// The bounds in force.
    public let limits: SanitizerLimits
    /// What has been changed so far.
    public internal(set) var report = SanitizerReport()

    init(limits: SanitizerLimits) {
        self.limits = limits
    }

    /// Cleans a single-line field (identifier, name, template).
    public mutating func line(_ text: inout String) {
        clean(&text, maxBytes: limits.maxLineBytes, multiline: false)
    }

    /// Cleans an optional single-line field.
    public mutating func line(_ text: inout String?) {
        guard var value = text else { return }
        line(&value)
        text = value
    }

    /// Cleans a free-text field (message, reason), keeping newlines and tabs.
    public mutating func text(_ text: inout String?) {
        guard var value = text else { return }
        clean(&value, maxBytes: limits.maxTextBytes, multiline: true)
        text = value
    }

    /// Cleans a free-text field (message, reason), keeping newlines and tabs.
    public mutating func text(_ text: inout String) {
        clean(&text, maxBytes: limits.maxTextBytes, multiline: true)
    }

    /// Replaces NaN and infinities with zero.
    public mutating func number(_ value: inout Double) {
        if !value.isFinite { value = 0; report.numbersReplaced += 1 }
    }

    /// Replaces NaN and infinities with zero.
    public mutating func number(_ value: inout Double?) {
        if let current = value, !current.isFinite { value = 0; report.numbersReplaced += 1 }
    }

    /// Cuts `array` to `maxCount` elements, keeping the first ones.
    public mutating func bound<Element>(_ array: inout [Element], to maxCount: Int) {
        if array.count > maxCount {
            array.removeSubrange(maxCount...)
            report.collectionsTruncated += 1
        }
    }

    /// Cuts an optional array to `maxCount` elements.
    public mutating func bound<Element>(_ array: inout [Element]?, to maxCount: Int) {
        guard var value = array else { return }
        bound(&value, to: maxCount)
        array = value
    }

    /// Cleans a stack and bounds its frame count.
    public mutating func stack(_ frames: inout [Address]) {
        bound(&frames, to: limits.maxFramesPerStack)
    }

    /// Cleans an optional stack and bounds its frame count.
    public mutating func stack(_ frames: inout [Address]?) {
        bound(&frames, to: limits.maxFramesPerStack)
    }

    /// Cleans keys and values of a string dictionary and keeps at most `maxCount` entries
    /// (the smallest keys, so the choice is deterministic).
    public mutating func dictionary(_ dictionary: inout [String: String], maxCount: Int,
                                    maxKeyBytes: Int, maxValueBytes: Int) {
        var result: [String: String] = [:]
        var changed = false
        let entries = dictionary.sorted { $0.key < $1.key }
        if entries.count > maxCount { report.collectionsTruncated += 1; changed = true }
        for (key, original) in entries.prefix(maxCount) {
            var cleanKey = key
            var value = original
            let before = report
            clean(&cleanKey, maxBytes: maxKeyBytes, multiline: false)
            clean(&value, maxBytes: maxValueBytes, multiline: false)
            if report != before { changed = true }
            guard !cleanKey.isEmpty, result[cleanKey] == nil else { changed = true; continue }
            result[cleanKey] = value
        }
        if changed { dictionary = result }
    }

    /// Cleans keys and string values of an attribute dictionary and bounds its size.
    public mutating func attributes(_ attributes: inout [String: AttributeValue]) {
        var result: [String: AttributeValue] = [:]
        var changed = false
        let entries = attributes.sorted { $0.key < $1.key }
        if entries.count > limits.maxAttributes { report.collectionsTruncated += 1; changed = true }
        for (key, original) in entries.prefix(limits.maxAttributes) {
            var cleanKey = key
            var value = original
            let before = report
            clean(&cleanKey, maxBytes: limits.maxTagKeyBytes * 2, multiline: false)
            switch value {
            case .string(var text):
                clean(&text, maxBytes: limits.maxLineBytes, multiline: true)
                value = .string(text)
            case .double(var number):
                self.number(&number)
                value = .double(number)
            case .int, .bool:
                break
            }
            if report != before { changed = true }
            guard !cleanKey.isEmpty, result[cleanKey] == nil else { changed = true; continue }
            result[cleanKey] = value
        }
        if changed { attributes = result }
    }

    /// Cleans an optional attribute dictionary.
    public mutating func attributes(_ attributes: inout [String: AttributeValue]?) {
        guard var value = attributes else { return }
        self.attributes(&value)
        attributes = value
    }

    mutating func clean(_ text: inout String, maxBytes: Int, multiline: Bool) {
        // Fast path: printable ASCII within the limit needs no copy.
        var needsWork = text.utf8.count > maxBytes
        if !needsWork {
            for byte in text.utf8 where byte < 0x20 || byte >= 0x7F {
                if multiline && (byte == 0x0A || byte == 0x09) { continue }
                needsWork = true
                break
            }
        }
        guard needsWork else { return }
        var scalars = String.UnicodeScalarView()
        var removed = false
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where multiline, 0x09 where multiline:
                scalars.append(scalar)
            case 0x2028, 0x2029:
                removed = true
                if multiline { scalars.append("\n") } else { scalars.append(" ") }
            case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF, 0xFFFE, 0xFFFF:
                // Controls, bidi overrides and byte-order marks: invisible and used to disguise text.
                removed = true
            default:
                scalars.append(scalar)
            }
        }
        if removed { report.stringsCleaned += 1 }
        var result = String(scalars)
        if result.utf8.count > maxBytes {
            report.stringsTruncated += 1
            var bytes = 0
            var cut = String.UnicodeScalarView()
            for scalar in result.unicodeScalars {
                let width = UTF8.width(scalar)
                if bytes + width > maxBytes { break }
                bytes += width
                cut.append(scalar)
            }
            result = String(cut)
        }
        text = result
    }
}
