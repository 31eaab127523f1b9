import Foundation

/// The demo's own backend, `/demo/api/…`: endpoints with the latency and failures a real API
/// has, for the sample app's network scenario to call so that the Network page has something
/// to show. Deterministic per request path, so a demo looks the same every time.
public enum DemoRoutes {
    /// The routes (added with `vigil demo`, or `ServerApplication.start(extraRoutes:)`).
    public static func routes() -> [HTTPRoute] {
        [
            // A catalogue read: 40–320 ms, every 7th product slow (1.2 s).
            HTTPRoute("GET", "/demo/api/products/:id", name: "demo") { request in
                let id = Int(request.pathParameters["id"] ?? "") ?? 0
                let delay = id % 7 == 6 ? 1_200 : 40 + (id * 37) % 280
                Thread.sleep(forTimeInterval: Double(delay) / 1000)
                return .json(Data("{\"id\":\(id),\"name\":\"Product \(id)\",\"price\":\(10 + id % 90)}".utf8))
            },
            // A checkout: 300 ms, and every third attempt fails with 503 and Retry-After.
            HTTPRoute("POST", "/demo/api/checkout/:attempt", name: "demo", body: BodyPolicy(maxBytes: 64 * 1024)) { request in
                let attempt = Int(request.pathParameters["attempt"] ?? "") ?? 0
                Thread.sleep(forTimeInterval: 0.3)
                if attempt % 3 == 2 {
                    throw HTTPError(status: 503, code: "overloaded", reason: "the demo checkout fails every third attempt",
                                    headers: [("Retry-After", "1")])
                }
                return .json(Data("{\"order\":\(1000 + attempt),\"status\":\"confirmed\"}".utf8))
            },
            // Anything else the sample may ask for: `?delayMs=` and `?status=` say how to answer.
            HTTPRoute("GET", "/demo/api/echo", name: "demo") { request in
                let delay = min(10_000, max(0, Int(request.query["delayMs"] ?? "") ?? 0))
                let status = min(599, max(200, Int(request.query["status"] ?? "") ?? 200))
                Thread.sleep(forTimeInterval: Double(delay) / 1000)
                return HTTPResponse.json(Data("{\"delayMs\":\(delay),\"status\":\(status)}".utf8), status: status)
            },
        ]
    }
}
