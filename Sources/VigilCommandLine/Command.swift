import Foundation

/// One subcommand of a Vigil executable (`vigil`, `vigil-sample`, `vigil-bench`).
public protocol Command {
    /// The word that selects it, e.g. `symbolicate`.
    static var name: String { get }
    /// One line for the program's help.
    static var summary: String { get }
    /// Full usage text.
    static var usage: String { get }
    /// Runs with the words after the command name; returns the exit status.
    static func run(_ words: [String]) throws -> Int32
}

/// Dispatches a program's command line to one of its ``Command``s, printing help for `help`,
/// `--help` or no command, and turning errors into messages and exit statuses: 64 (EX_USAGE)
/// for a ``UsageError``, 1 for any other error.
public enum CommandDispatcher {
    /// Runs the command selected by `arguments[1]` and returns the process's exit status.
    public static func main(program: String, commands: [any Command.Type],
                            arguments: [String] = CommandLine.arguments) -> Int32 {
        let words = Array(arguments.dropFirst())
        guard let name = words.first, name != "help", name != "--help", name != "-h" else {
            var text = "usage: \(program) <command> [options]\n\ncommands:\n"
            for command in commands {
                text += "  " + command.name.padding(toLength: 18, withPad: " ", startingAt: 0) + command.summary + "\n"
            }
            text += "\n`\(program) <command> --help` shows a command's options.\n"
            writeStandardOutput(text)
            return words.isEmpty ? 64 : 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            writeStandardError("\(program): unknown command \"\(name)\"; `\(program) help` lists them")
            return 64
        }
        let rest = Array(words.dropFirst())
        if rest.first == "--help" || rest.first == "-h" {
            writeStandardOutput(command.usage + "\n")
            return 0
        }
        do {
            return try command.run(rest)
        } catch let error as UsageError {
            writeStandardError("\(program) \(command.name): \(error)\n\n\(command.usage)")
            return 64
        } catch {
            writeStandardError("\(program) \(command.name): \(error)")
            return 1
        }
    }

    /// Writes `text` to standard output without buffering.
    public static func writeStandardOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `text` to standard error, adding a final newline when missing.
    public static func writeStandardError(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }
}
