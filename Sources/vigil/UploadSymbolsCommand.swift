import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCommandLine
import VigilServer
import VigilSymbols

/// `vigil upload-symbols`: sends debug files to a server's `POST /api/v1/symbols`.
enum UploadSymbolsCommand: Command {
    static let name = "upload-symbols"
    static let summary = "upload dSYMs, Mach-O or ELF debug files to a vigil server"
    static let usage = """
        usage: vigil upload-symbols [PATH...] --server URL [--project NAME] [--admin-token TOKEN] [--force]

          PATH           a .dSYM bundle (each DWARF file inside is sent); a folder of .dSYM bundles
                         (Xcode's ${DWARF_DSYM_FOLDER_PATH}, an archive's dSYMs folder) or an
                         .xcarchive; a Mach-O, fat or ELF file; or a zip / tar / tar.gz of them.
                         Default: ${DWARF_DSYM_FOLDER_PATH}, when run from an Xcode build phase
          --server       the server, e.g. http://127.0.0.1:8750 (or $VIGIL_SERVER_URL)
          --project      the project the symbols belong to (default: the server's default project)
          --admin-token  the server's admin token (or $VIGIL_ADMIN_TOKEN)
          --force        send files whose debug ids the server already has (normally skipped)

        From Xcode (a Run Script build phase after "Embed Frameworks", or a scheme's archive
        post-action), these build settings matter:
          DWARF_DSYM_FOLDER_PATH     the folder Xcode writes dSYMs to (the default PATH)
          DWARF_DSYM_FILE_NAME       the app's dSYM bundle in it, e.g. Shop.app.dSYM
          DEBUG_INFORMATION_FORMAT   must be dwarf-with-dsym: with dwarf (the Debug default) no
                                     dSYM is written, and this command says so
          TARGET_NAME                names the DWARF file inside the bundle; list
                                     ${DWARF_DSYM_FOLDER_PATH}/${DWARF_DSYM_FILE_NAME}/Contents/Resources/DWARF/${TARGET_NAME}
                                     as the phase's input file so that Xcode runs it after the
                                     dSYM exists (and lets a sandboxed script read it)
        For CI: `xcodebuild archive -archivePath Shop.xcarchive …`, then
        `vigil upload-symbols Shop.xcarchive --server …`.

        Before sending a file, asks the server which debug ids it has: a file whose every slice
        the server holds (from the same kind of file, or from a dSYM) is skipped as
        "already uploaded", so a build phase that runs on every build sends each dSYM once; a
        dSYM still replaces an app binary uploaded earlier under the same id. Prints each slice the server stored (debug id, arch,
        name) and how many earlier events it queued for re-processing. Exit status 1 when a
        path holds no debug file or any upload was refused.
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["server", "project", "admin-token"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["force"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        // An empty variable counts as unset (a build phase may export one it never filled).
        let environment = ProcessInfo.processInfo.environment.filter { !$0.value.isEmpty }
        guard let serverText = arguments.value("server") ?? environment["VIGIL_SERVER_URL"] else {
            throw UsageError("missing --server (or $VIGIL_SERVER_URL)")
        }
        guard let server = URL(string: serverText), server.scheme != nil else {
            throw UsageError("--server must be a URL like http://127.0.0.1:8750")
        }
        guard let token = arguments.value("admin-token") ?? environment["VIGIL_ADMIN_TOKEN"] else {
            throw UsageError("missing --admin-token (or $VIGIL_ADMIN_TOKEN)")
        }
        let inputs = SymbolUploadInputs(settings: .init(environment: environment))
        var files: [String] = []
        for path in try inputs.paths(arguments.positional) {
            files += try inputs.files(for: path)
        }
        let project = arguments.value("project")
        // What the server has, to skip files sent before; nil (send everything) when it cannot say.
        let stored = arguments.flag("force") ? nil : storedSlices(server: server, project: project, token: token)
        var failed = false
        for file in files {
            if let stored, let local = localSlices(file), !local.isEmpty, local.allSatisfy({ $0.isCovered(by: stored) }) {
                let ids = local.map(\.key).sorted { ($0.debugID, $0.arch) < ($1.debugID, $1.arch) }.map { "\($0.debugID) \($0.arch)" }
                CommandDispatcher.writeStandardOutput("\(file): already uploaded (\(ids.joined(separator: ", "))); "
                    + "nothing sent (--force sends it again)\n")
                continue
            }
            var components = URLComponents(url: server.appendingPathComponent("api/v1/symbols"), resolvingAgainstBaseURL: false)
            var items = [URLQueryItem(name: "name", value: URL(fileURLWithPath: file).lastPathComponent)]
            if let project { items.append(URLQueryItem(name: "project", value: project)) }
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

    /// One slice's identity as the server keys stored symbols.
    private struct SliceKey: Hashable {
        var debugID: String
        var arch: String
    }

    /// A slice of a local file, described as the server would store it.
    private struct LocalSlice {
        var key: SliceKey
        /// The server's `kind` for it: `dsym`, or e.g. `macho executable`.
        var kind: String
        var hasDWARF: Bool

        /// Whether sending it again would change nothing the server keeps: the server has this
        /// id and arch from the same kind of file, or from a dSYM, or this copy has no DWARF to
        /// add. (An app binary uploaded first is replaced by its dSYM, which is not skipped.)
        func isCovered(by stored: [SliceKey: String]) -> Bool {
            guard let storedKind = stored[key] else { return false }
            return storedKind == kind || storedKind == "dsym" || !hasDWARF
        }
    }

    /// The slices of `file` that the server would store (a debug id, and DWARF or symbols);
    /// nil when the file is not an object file read here (an archive: the server unpacks it).
    private static func localSlices(_ file: String) -> [LocalSlice]? {
        guard let object = try? ObjectFile(path: file) else { return nil }
        return object.slices.compactMap { slice in
            guard let id = slice.id, slice.hasDWARF || slice.hasSymbolTable else { return nil }
            return LocalSlice(key: SliceKey(debugID: DebugIDSpelling.normalize(id.description), arch: slice.arch),
                              kind: slice.kind == .debugCompanion ? "dsym" : "\(slice.format.rawValue) \(slice.kind.rawValue)",
                              hasDWARF: slice.hasDWARF)
        }
    }

    /// The slices the server holds for the project (`GET /api/v1/symbols`) and the kind of
    /// file each came from; nil when it does not answer that question, so that every file is
    /// sent.
    private static func storedSlices(server: URL, project: String?, token: String) -> [SliceKey: String]? {
        var components = URLComponents(url: server.appendingPathComponent("api/v1/symbols"), resolvingAgainstBaseURL: false)
        if let project { components?.queryItems = [URLQueryItem(name: "project", value: project)] }
        guard let url = components?.url,
              let (status, body) = try? send(URLRequest(url: url), token: token, upload: nil), status == 200,
              let answer = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
              let uploaded = answer["uploaded"] as? [[String: Any]] else { return nil }
        var stored: [SliceKey: String] = [:]
        for entry in uploaded {
            guard let id = entry["debugId"] as? String, let arch = entry["arch"] as? String else { continue }
            stored[SliceKey(debugID: DebugIDSpelling.normalize(id), arch: arch)] = entry["kind"] as? String ?? ""
        }
        return stored
    }

    private static func post(_ file: URL, to endpoint: URL, token: String) throws -> (Int, Data) {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.timeoutInterval = 600
        return try send(request, token: token, upload: file)
    }

    private static func send(_ request: URLRequest, token: String, upload file: URL?) throws -> (Int, Data) {
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
            box.result = error.map { .failure($0) }
                ?? .success(((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
            done.signal()
        }
        let task = file.map { URLSession.shared.uploadTask(with: request, fromFile: $0, completionHandler: handler) }
            ?? URLSession.shared.dataTask(with: request, completionHandler: handler)
        task.resume()
        done.wait()
        return try box.result!.get()
    }

    private final class Box: @unchecked Sendable {
        var result: Result<(Int, Data), any Error>?
    }
}
