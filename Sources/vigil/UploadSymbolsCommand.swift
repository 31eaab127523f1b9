import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCommandLine
import VigilSymbols

/// `vigil upload-symbols`: sends debug files to a server's `POST /api/v1/symbols`.
enum UploadSymbolsCommand: Command {
    static let name = "upload-symbols"
    static let summary = "upload dSYMs, Mach-O or ELF debug files to a vigil server"
    static let usage = """
        usage: vigil upload-symbols PATH... --server URL [--project NAME] [--admin-token TOKEN]

          PATH           a .dSYM bundle (each DWARF file inside is sent), a Mach-O, fat or ELF file,
                         or a zip / tar / tar.gz of them
          --server       the server, e.g. http://127.0.0.1:8750
          --project      the project the symbols belong to (default: the server's default project)
          --admin-token  the server's admin token (or $VIGIL_ADMIN_TOKEN)

        Prints each slice the server stored (debug id, arch, name) and how many earlier events it
        queued for re-processing. Exit status 1 when any upload was refused.
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["server", "project", "admin-token"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard !arguments.positional.isEmpty else { throw UsageError("missing PATH") }
        guard let server = URL(string: try arguments.required("server")), server.scheme != nil else {
            throw UsageError("--server must be a URL like http://127.0.0.1:8750")
        }
        guard let token = arguments.value("admin-token") ?? ProcessInfo.processInfo.environment["VIGIL_ADMIN_TOKEN"] else {
            throw UsageError("missing --admin-token (or $VIGIL_ADMIN_TOKEN)")
        }
        var files: [String] = []
        for path in arguments.positional {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw UsageError("no such file: \(path)")
            }
            if isDirectory.boolValue {
                files += try ObjectFile.debugFiles(inBundle: path)
            } else {
                files.append(path)
            }
        }
        var failed = false
        for file in files {
            var components = URLComponents(url: server.appendingPathComponent("api/v1/symbols"), resolvingAgainstBaseURL: false)
            var items = [URLQueryItem(name: "name", value: URL(fileURLWithPath: file).lastPathComponent)]
            if let project = arguments.value("project") { items.append(URLQueryItem(name: "project", value: project)) }
            components?.queryItems = items
            guard let endpoint = components?.url else { throw UsageError("--server is not a usable URL") }
            let (status, body) = try post(URL(fileURLWithPath: file), to: endpoint, token: token)
            let answer = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
            if status == 200 {
                for slice in answer["slices"] as? [[String: Any]] ?? [] {
                    CommandDispatcher.writeStandardOutput("\(slice["debugId"] ?? "?") \(slice["arch"] ?? "?") \(slice["name"] ?? "?") "
                        + "(\(slice["kind"] ?? "?"), SymCache \(slice["symcacheBytes"] ?? 0) bytes)\n")
                }
                CommandDispatcher.writeStandardOutput("\(file): stored; \(answer["requeuedEvents"] ?? 0) events queued again\n")
            } else {
                failed = true
                CommandDispatcher.writeStandardError("\(file): HTTP \(status): \(answer["reason"] ?? String(decoding: body, as: UTF8.self))")
            }
        }
        return failed ? 1 : 0
    }

    private static func post(_ file: URL, to endpoint: URL, token: String) throws -> (Int, Data) {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.timeoutInterval = 600
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        let task = URLSession.shared.uploadTask(with: request, fromFile: file) { data, response, error in
            box.result = error.map { .failure($0) }
                ?? .success(((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
            done.signal()
        }
        task.resume()
        done.wait()
        return try box.result!.get()
    }

    private final class Box: @unchecked Sendable {
        var result: Result<(Int, Data), any Error>?
    }
}
