/// Finds the route for a method and path; tells a wrong method (405) from an unknown path (404).
///
/// Routes are matched in the order they were added; the table is small, so a linear scan over
/// pre-split patterns is faster than anything cleverer.
public struct HTTPRouter: Sendable {
    /// The outcome of a lookup.
    public enum Match: Sendable {
        /// The route and its placeholder values.
        case found(HTTPRoute, [String: String])
        /// The path exists for these other methods.
        case methodNotAllowed([String])
        /// No route has this path.
        case notFound
    }

    /// Every route, in matching order.
    public private(set) var routes: [HTTPRoute] = []

    /// An empty router.
    public init() {}

    /// Adds a route.
    public mutating func add(_ route: HTTPRoute) { routes.append(route) }

    /// Adds a route built from its parts.
    public mutating func add(_ method: String, _ pattern: String, name: String? = nil, body: BodyPolicy = .small,
                             authorize: HTTPRoute.Authorizer? = nil, handler: @escaping HTTPRoute.Handler) {
        add(HTTPRoute(method, pattern, name: name, body: body, authorize: authorize, handler: handler))
    }

    /// Looks up `method` and `path`; `HEAD` falls back to the `GET` route.
    public func match(method: String, path: String) -> Match {
        let parts = path.split(separator: "/")
        var allowed: [String] = []
        for route in routes {
            guard let parameters = route.match(parts) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(route, parameters)
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }
}
