import Foundation

/// A fenced code block of a Markdown file that the test suite compiles or runs: the block right
/// after a `<!-- docs-test: KIND -->` line.
struct DocsSnippet: CustomStringConvertible {
    /// What the tests do with it: `swift` (type-checked as an app file), `launch` (the launch
    /// examples, compiled together), `manifest` (evaluated by SwiftPM), `xcode-run-script`,
    /// `ci-upload`, `serve` (shell, run against a loopback server).
    var kind: String
    /// The fence's info string, e.g. `swift` or `sh`.
    var language: String
    /// The code between the fences, with a final newline.
    var code: String
    /// The Markdown file, relative to the package root.
    var file: String
    /// The 1-based line of the opening fence.
    var line: Int

    var description: String { "\(file):\(line) (\(kind))" }

    /// Every marked block of `file` (relative to `root`), in order.
    static func all(in file: String, root: URL) throws -> [DocsSnippet] {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        return parse(text, file: file)
    }

    /// Every marked block of a Markdown `text`.
    static func parse(_ text: String, file: String) -> [DocsSnippet] {
        let lines = text.components(separatedBy: "\n")
        var snippets: [DocsSnippet] = []
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("<!-- docs-test:"), line.hasSuffix("-->"), index + 1 < lines.count,
               lines[index + 1].hasPrefix("```") {
                let kind = line.dropFirst("<!-- docs-test:".count).dropLast(3).trimmingCharacters(in: .whitespaces)
                let language = String(lines[index + 1].dropFirst(3))
                var body: [String] = []
                var end = index + 2
                while end < lines.count, !lines[end].hasPrefix("```") {
                    body.append(lines[end])
                    end += 1
                }
                snippets.append(DocsSnippet(kind: kind, language: language, code: body.joined(separator: "\n") + "\n",
                                            file: file, line: index + 2))
                index = end + 1
            } else {
                index += 1
            }
        }
        return snippets
    }

    /// The `import` lines of a Swift snippet, as module names.
    var importedModules: [String] {
        code.components(separatedBy: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.first == "import", words.count == 2 else { return nil }
            return String(words[1])
        }
    }

    /// The code blocks of the section titled `heading` (to its next `## `), marked or not.
    static func fencedBlockCount(in text: String, section heading: String) -> (marked: Int, all: Int) {
        guard let start = text.range(of: "\n" + heading + "\n") else { return (0, 0) }
        let rest = text[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        let lines = section.components(separatedBy: "\n")
        var all = 0, marked = 0, open = false
        for (index, line) in lines.enumerated() where line.hasPrefix("```") {
            if !open {
                all += 1
                if index > 0, lines[index - 1].hasPrefix("<!-- docs-test:") { marked += 1 }
            }
            open.toggle()
        }
        return (marked, all)
    }
}
