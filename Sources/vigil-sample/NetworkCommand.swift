import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Vigil
import VigilCommandLine
import VigilCore

/// `vigil-sample network`: requests through an instrumented `URLSession` while Vigil runs, so
/// that an end-to-end test (and anyone curious) sees the `network` events the SDK writes.
enum NetworkCommand: Command {
    static let name = "network"
    static let summary = "HTTP requests through an instrumented URLSession; writes the network events"
    static let usage = """
        usage: vigil-sample network --base-url URL (--paths LIST | --demo-api) [--parallel N]
                                    [--trace-hosts H,...] [--sample-rate R] [common options]

          --base-url URL      where the requests go, e.g. http://127.0.0.1:8080
          --paths LIST        comma-separated requests made one after another: a path (with its
                              query), or METHOD and path separated by a space ("POST /orders/1")
          --demo-api          the requests of the `vigil demo` backend (/demo/api/… on a server run
                              by `vigil demo`): product reads, two of them slow (1.2 s), checkouts
                              of which every third fails with 503, a 500 and a 404
          --parallel N        requests in flight at once (default 1: in order)
          --trace-hosts LIST  hosts sent a W3C traceparent header (default none)
          --sample-rate R     share of ordinary requests recorded (default 1)

        Prints one line per request (status or error) and the events written. Vigil never
        records requests to its own --server's host: point --base-url at another name of the
        same machine (localhost rather than 127.0.0.1) to record calls to `vigil demo`'s backend.

        common options:
        \(SampleHarness.commonUsage)
        """

    /// One request of the scenario.
    struct Request: Sendable {
        var method: String
        var path: String

        /// `PATH` or `METHOD PATH`.
        init(_ text: String) throws {
            let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            switch parts.count {
            case 1: (method, path) = ("GET", parts[0])
            case 2: (method, path) = (parts[0].uppercased(), parts[1])
            default: throw UsageError("--paths: \"\(text)\" is neither PATH nor METHOD PATH")
            }
            guard path.hasPrefix("/") else { throw UsageError("--paths: \"\(path)\" must start with /") }
            guard method.allSatisfy({ $0.isLetter }) else { throw UsageError("--paths: \"\(method)\" is not an HTTP method") }
        }
    }

    /// What `--demo-api` requests from `vigil demo`'s backend (see `DemoRoutes` in the server):
    /// product reads of 40–320 ms with ids 6 and 13 taking 1.2 s, six checkouts of which
    /// attempts 2 and 5 answer 503, a slow echo, a 500 and a 404.
    static let demoAPIRequests = [
        "/demo/api/products/1", "/demo/api/products/2", "/demo/api/products/3", "/demo/api/products/4",
        "/demo/api/products/5", "/demo/api/products/6", "/demo/api/products/8", "/demo/api/products/13",
        "POST /demo/api/checkout/0", "POST /demo/api/checkout/1", "POST /demo/api/checkout/2",
        "POST /demo/api/checkout/3", "POST /demo/api/checkout/4", "POST /demo/api/checkout/5",
        "/demo/api/echo?delayMs=700", "/demo/api/echo?status=500", "/demo/api/echo?status=404",
    ]

    static func run(_ words: [String]) throws -> Int32 {
        let valued = SampleHarness.commonValued.union(["base-url", "paths", "trace-hosts", "sample-rate", "parallel"])
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["demo-api"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard let base = arguments.value("base-url"), let baseURL = URL(string: base), baseURL.host != nil else {
            throw UsageError("--base-url must be an absolute URL")
        }
        let listed = (arguments.value("paths") ?? "").split(separator: ",").map(String.init)
        guard listed.isEmpty == arguments.flag("demo-api") else { throw UsageError("give either --paths or --demo-api") }
        let requests = try (arguments.flag("demo-api") ? demoAPIRequests : listed).map(Request.init)
        let parallel: Int = try arguments.number("parallel", default: 1)
        guard (1...32).contains(parallel) else { throw UsageError("--parallel must be 1…32") }
        var monitoring = VigilConfiguration()
        monitoring.enabledModules = [.network]
        monitoring.network.traceContextHosts = HostPatternSet(
            (arguments.value("trace-hosts") ?? "").split(separator: ",").map(String.init))
        monitoring.network.sampleRate = try arguments.number("sample-rate", default: 1.0)
        if let problem = monitoring.network.problems().first { throw UsageError("\(problem)") }

        let harness = try SampleHarness(arguments: arguments)
        let configuration = URLSessionConfiguration.ephemeral
        #if canImport(FoundationNetworking)
        guard Vigil.instrument(configuration) else { throw UsageError("the session could not be instrumented") }
        #endif
        guard Vigil.start(try harness.setup(monitoring: monitoring)) else { throw UsageError("Vigil could not start") }
        let session = URLSession(configuration: configuration)
        let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        return harness.runMainLoop { finish in
            DispatchQueue.global().async {
                let slots = DispatchSemaphore(value: parallel)
                let group = DispatchGroup()
                for request in requests {
                    guard let url = URL(string: trimmedBase + request.path) else {
                        CommandDispatcher.writeStandardOutput("\(request.path): not a URL\n")
                        continue
                    }
                    var urlRequest = URLRequest(url: url)
                    urlRequest.httpMethod = request.method
                    if request.method == "POST" || request.method == "PUT" {
                        urlRequest.httpBody = Data("{\"items\":[1,2,3]}".utf8)
                        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
                    }
                    slots.wait()
                    group.enter()
                    session.dataTask(with: urlRequest) { data, response, error in
                        let outcome = error.map { "error \(($0 as NSError).code)" }
                            ?? "status \((response as? HTTPURLResponse)?.statusCode ?? 0), \(data?.count ?? 0) bytes"
                        let label = request.method == "GET" ? request.path : "\(request.method) \(request.path)"
                        CommandDispatcher.writeStandardOutput("\(label): \(outcome)\n")
                        slots.signal()
                        group.leave()
                    }.resume()
                }
                group.wait()
                // Recorded requests reach the monitoring queue asynchronously; stopping drains it.
                DispatchQueue.main.async { finish() }
            }
        }
    }
}
