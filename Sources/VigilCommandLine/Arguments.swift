/// A parsed command line: `--name value` options, `--flag` switches and positional words.
///
/// Deliberately small (the package may not depend on swift-argument-parser): each command
/// declares which options take a value, and asks for what it needs with typed accessors that
/// throw a ``UsageError`` naming the option.
public struct Arguments: Sendable {
    /// Words that are not options, in order.
    public private(set) var positional: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `words`; every `--name` in `valued` takes the next word (or `--name=value`),
    /// any other `--name` is a flag. `--` ends option parsing.
    public init(_ words: [String], valued: Set<String>) throws {
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || !word.hasPrefix("--") || word == "-" {
                positional.append(word)
                continue
            }
            if word == "--" { optionsEnded = true; continue }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if valued.contains(name) {
                if let inline {
                    values[name, default: []].append(inline)
                } else {
                    guard index < words.count else { throw UsageError("--\(name) needs a value") }
                    values[name, default: []].append(words[index])
                    index += 1
                }
            } else {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            }
        }
    }

    /// Whether `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The last value of `--name`, if given.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable `--name`.
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of `--name`, or a usage error.
    public func required(_ name: String) throws -> String {
        guard let value = value(name) else { throw UsageError("missing --\(name)") }
        return value
    }

    /// `--name` parsed as `T`, `defaultValue` when absent, a usage error when malformed.
    public func number<T: LosslessStringConvertible>(_ name: String, default defaultValue: T) throws -> T {
        guard let text = value(name) else { return defaultValue }
        guard let parsed = T(text) else { throw UsageError("--\(name): \"\(text)\" is not a valid number") }
        return parsed
    }

    /// Options the command did not expect, for a clear error instead of silent ignoring.
    public func unknown(allowedFlags: Set<String>, allowedValues: Set<String>) -> [String] {
        (flags.subtracting(allowedFlags).union(Set(values.keys).subtracting(allowedValues))).sorted()
    }
}

/// A command-line mistake; printed with the command's usage and exit status 64 (EX_USAGE).
public struct UsageError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
