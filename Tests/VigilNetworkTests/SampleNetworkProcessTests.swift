import Foundation
import Testing
import VigilCore
import VigilTestSupport

/// `Vigil.start` + `Vigil.instrument` in a real process (`vigil-sample network`): the requests
/// become `network` events in the app's envelope, through the monitoring session.
@Suite("vigil-sample network (real process)")
struct SampleNetworkProcessTests {
    @Test("requests of an instrumented session become network events with the app's envelope and context")
    func networkEvents() throws {
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/api/users/42": return .respond(status: 200, headers: [:], body: Data(repeating: 0x61, count: 300))
            case "/api/orders/7": return .respond(status: 500, headers: [:], body: Data("boom".utf8))
            default:
                return .respond(status: 200, headers: [:], body: Data((request.headers["traceparent"] ?? "none").utf8))
            }
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "sample-network")
        defer { directory.remove() }
        let out = directory.file("events.jsonl")
        let outcome = try ChildProcess.run(try BuildProducts.executable("vigil-sample"),
                                           ["network", "--base-url", server.baseURL.absoluteString,
                                            "--paths", "/api/users/42,/api/orders/7,/trace?x=1",
                                            "--trace-hosts", "127.0.0.1", "--out", out.path], timeout: 60)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let events = try EventJSON.decodeBatch(Data(contentsOf: out)).compactMap { try? $0.get() }
        let network = events.compactMap { event -> (Event, NetworkPayload)? in
            if case .network(let payload) = event.payload { return (event, payload) }
            return nil
        }
        #expect(network.count == 3)
        let origin = "http://127.0.0.1:\(server.port)"
        #expect(network.map(\.1.urlTemplate) == [origin + "/api/users/:id", origin + "/api/orders/:id", origin + "/trace"])
        #expect(network.map(\.1.status) == [200, 500, 200])
        #expect(network.first?.1.bytesReceived == 300)
        for (event, payload) in network {
            #expect(event.app.id == "dev.vigil.sample")
            #expect(event.context.network != nil, "the event carries the network type")
            #expect(TraceIdentifier.isValid(payload.traceId ?? "", hexDigits: 32), "every request to a listed host is traced")
        }
        // The server received a traceparent on every request (55 characters echoed back).
        #expect(outcome.standardOutput.contains("/trace?x=1: status 200, 55 bytes"), "\(outcome.standardOutput)")
    }
}
