import VigilCore
import VigilCommandLine

/// `vigil version`: the tool's version and the event schema it speaks.
enum VersionCommand: Command {
    static let name = "version"
    static let summary = "print the version and the event schema version"
    static let usage = "usage: vigil version"

    static func run(_ words: [String]) throws -> Int32 {
        guard words.isEmpty else { throw UsageError("takes no arguments") }
        print("vigil \(VigilVersion.string) (event schema \(Event.currentSchema))")
        return 0
    }
}
