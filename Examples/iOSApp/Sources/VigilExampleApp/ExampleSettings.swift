import Foundation

/// Where the example sends its events and calls its slow API, from the environment (set them in
/// the Xcode scheme: Product › Scheme › Edit Scheme › Run › Arguments › Environment Variables).
struct ExampleSettings: Sendable {
    /// The Vigil server (`VIGIL_SERVER_URL`); the simulator reaches the Mac's loopback.
    var serverURL: URL
    /// The project's ingest key (`VIGIL_INGEST_KEY`), as `vigil serve` printed it.
    var ingestKey: String
    /// The base of the slow-request button's API (`VIGIL_DEMO_API`): `vigil demo` serves
    /// `/demo/api/echo`. Spelled with `localhost` so that it is not the SDK's own server host,
    /// whose requests the SDK leaves out of network monitoring.
    var demoAPI: URL

    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ExampleSettings {
        func url(_ name: String, _ fallback: String) -> URL {
            environment[name].flatMap { URL(string: $0) } ?? URL(string: fallback)!
        }
        return ExampleSettings(serverURL: url("VIGIL_SERVER_URL", "http://127.0.0.1:8750"),
                               ingestKey: environment["VIGIL_INGEST_KEY"] ?? "",
                               demoAPI: url("VIGIL_DEMO_API", "http://localhost:8750/demo/api"))
    }
}
