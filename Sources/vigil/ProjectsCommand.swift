import Foundation
import VigilCommandLine
import VigilServer

/// `vigil projects create NAME` / `vigil projects list`: manage projects in a server's database.
enum ProjectsCommand: Command {
    static let name = "projects"
    static let summary = "create, list or re-key projects (each has its own ingest key)"
    static let usage = """
        usage: vigil projects create NAME [--db URL]
               vigil projects list [--db URL]
               vigil projects rotate-key NAME [--db URL]

          create       makes the project and prints its id and ingest key (shown only now; stored hashed)
          rotate-key   replaces the project's ingest key (the old one stops working within 30 s)
          --db     sqlite:PATH or postgres://… (default sqlite:.vigil/vigil.sqlite)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, valued: ["db"])
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: ["db"])
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard let action = arguments.positional.first else { throw UsageError("missing create or list") }
        let store = try ServerStore.open(try ServeCommand.database(arguments), connections: 2)
        defer { store.database.close() }
        switch action {
        case "create":
            guard arguments.positional.count == 2 else { throw UsageError("create takes one NAME") }
            let (project, key) = try store.createProject(name: arguments.positional[1])
            CommandDispatcher.writeStandardOutput("project \(project.name) (id \(project.id))\ningest key (shown only now): \(key)\n")
        case "rotate-key":
            guard arguments.positional.count == 2 else { throw UsageError("rotate-key takes one NAME") }
            guard let project = try store.project(named: arguments.positional[1]) else {
                throw ProjectError.unknown("named \"\(arguments.positional[1])\"")
            }
            let key = try store.rotateIngestKey(projectID: project.id)
            CommandDispatcher.writeStandardOutput("project \(project.name): new ingest key (shown only now): \(key)\n")
        case "list":
            guard arguments.positional.count == 1 else { throw UsageError("list takes no arguments") }
            for project in try store.projects() {
                CommandDispatcher.writeStandardOutput("\(project.id)\t\(project.name)\tcreated \(project.createdAt)\n")
            }
        default:
            throw UsageError("unknown action \"\(action)\"; expected create, list or rotate-key")
        }
        return 0
    }
}
