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
        usage: vigil-sample network --base-url URL --paths /a,/b,... [--trace-hosts H,...]
                                    [--sample-rate R] [--out FILE] [--data-dir DIR]

          --base-url URL      where the requests go, e.g. http://127.0.0.1:8080
          --paths LIST        comma-separated paths (with queries) requested one after another
          --trace-hosts LIST  hosts sent a W3C traceparent header (default none)
          --sample-rate R     share of ordinary requests recorded (default 1)

        Prints one line per request (status or error) and the events written.
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued = SampleHarness.commonValued.union(["base-url", "paths", "trace-hosts", "sample-rate"])
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard let base = arguments.value("base-url"), let baseURL = URL(string: base), baseURL.host != nil else {
            throw UsageError("--base-url must be an absolute URL")
        }
        let paths = (arguments.value("paths") ?? "").split(separator: ",").map(String.init)
        guard !paths.isEmpty else { throw UsageError("--paths must list at least one path") }
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
        return harness.runMainLoop { finish in
            DispatchQueue.global().async {
                for path in paths {
                    guard let url = URL(string: base + path) else { continue }
                    let done = DispatchSemaphore(value: 0)
                    session.dataTask(with: url) { data, response, error in
                        let outcome = error.map { "error \(($0 as NSError).code)" }
                            ?? "status \((response as? HTTPURLResponse)?.statusCode ?? 0), \(data?.count ?? 0) bytes"
                        CommandDispatcher.writeStandardOutput("\(path): \(outcome)\n")
                        done.signal()
                    }.resume()
                    done.wait()
                }
                // Recorded requests reach the monitoring queue asynchronously; stopping drains it.
                DispatchQueue.main.async { finish() }
            }
        }
    }
}
