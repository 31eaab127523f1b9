/// Small, bounds-checked scanning helpers shared by the `/proc` parsers.
enum ProcText {
    /// Largest text any `/proc` parser accepts (the files read are a few KiB).
    static let maxBytes = 1 << 20

    /// Rejects empty and oversized text.
    static func check(_ text: String, file: String) throws(ProcParseError) {
        let count = text.utf8.count
        if count == 0 || text.allSatisfy(\.isWhitespace) {
            throw ProcParseError(file: file, field: "text", offset: 0, reason: .empty)
        }
        if count > maxBytes { throw ProcParseError(file: file, field: "text", reason: .tooLarge(count)) }
    }

    /// A decimal unsigned integer, or nil (no sign, no spaces, at most 20 digits).
    static func unsigned(_ token: Substring) -> UInt64? {
        guard !token.isEmpty, token.utf8.count <= 20,
              token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return UInt64(token)
    }

    /// `token` shortened for an error message.
    static func excerpt(_ token: some StringProtocol) -> String { String(token.prefix(40)) }

    /// ``kilobyteField(_:in:file:requireUnit:)`` for a field the file must have: a missing
    /// `Key:` line throws `missingField`.
    static func requiredKilobyteField(_ key: String, in text: String, file: String) throws(ProcParseError) -> UInt64 {
        guard let value = try kilobyteField(key, in: text, file: file) else {
            throw ProcParseError(file: file, field: key, reason: .missingField)
        }
        return value
    }

    /// Finds the `Key:` line of a `Key:<spaces>value[ unit]` file (status, smaps_rollup) and
    /// returns its value in bytes; the unit must be `kB` (1024 bytes) when present.
    static func kilobyteField(_ key: String, in text: String, file: String,
                              requireUnit: Bool = true) throws(ProcParseError) -> UInt64? {
        var offset = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            defer { offset += line.utf8.count + 1 }
            guard line.hasPrefix(key + ":") else { continue }
            let rest = line.dropFirst(key.count + 1)
            let tokens = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let number = tokens.first else {
                throw ProcParseError(file: file, field: key, offset: offset, reason: .notANumber(""))
            }
            guard let value = unsigned(number) else {
                throw ProcParseError(file: file, field: key, offset: offset, reason: .notANumber(excerpt(number)))
            }
            if tokens.count > 1 || requireUnit {
                guard tokens.count == 2, tokens[1] == "kB" else {
                    throw ProcParseError(file: file, field: key, offset: offset,
                                         reason: .malformed("expected the unit kB after the value"))
                }
                let (bytes, overflow) = value.multipliedReportingOverflow(by: 1024)
                guard !overflow else {
                    throw ProcParseError(file: file, field: key, offset: offset,
                                         reason: .outOfRange("\(value) kB does not fit in 64 bits"))
                }
                return bytes
            }
            return value
        }
        return nil
    }
}
