/// One endpoint: a method, a path pattern, how its body is received, and the handler.
///
/// Patterns are literal segments and `:name` placeholders (`/api/v1/issues/:id`); a
/// placeholder matches one non-empty segment and its value reaches the handler in
/// ``HTTPRequest/pathParameters``.
public struct HTTPRoute: Sendable {
    /// The handler: runs on one of the server's threads, may block (database work), returns
    /// the answer or throws an ``HTTPError``.
    public typealias Handler = @Sendable (HTTPRequest) throws -> HTTPResponse

    /// Checks a request's credentials when its headers have arrived, before a byte of its body
    /// is read: it sees the method, path, query and headers (the body is empty) and throws an
    /// ``HTTPError`` (401, 429…) to refuse, which is answered at once — a client that sent
    /// `Expect: 100-continue` gets the refusal instead of `100 Continue`, and no spool file is
    /// made. What it returns (the key's project, say) reaches the handler as
    /// ``HTTPRequest/authorization``. Runs on the connection's worker thread; may block briefly
    /// (a cached key lookup).
    public typealias Authorizer = @Sendable (HTTPRequest) throws -> (any Sendable)?

    /// Uppercase method.
    public var method: String
    /// The pattern's segments.
    public var segments: [Segment]
    /// How the body is received.
    public var body: BodyPolicy
    /// A short name for metrics (`events`, `issues`…).
    public var name: String
    /// The handler.
    public var handler: Handler
    /// The credential check run before the body is read; nil for public routes.
    public var authorize: Authorizer?

    /// One segment of a pattern.
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    /// Creates a route for `method` and `pattern`.
    public init(_ method: String, _ pattern: String, name: String? = nil, body: BodyPolicy = .small,
                authorize: Authorizer? = nil, handler: @escaping Handler) {
        self.method = method.uppercased()
        self.segments = pattern.split(separator: "/").map { part in
            part.hasPrefix(":") ? .parameter(String(part.dropFirst())) : .literal(String(part))
        }
        self.body = body
        self.name = name ?? pattern
        self.handler = handler
        self.authorize = authorize
    }

    /// The placeholder values when `path` matches the pattern, nil otherwise.
    func match(_ pathSegments: [Substring]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, pathSegments) {
            switch segment {
            case .literal(let text): if text != part { return nil }
            case .parameter(let name): parameters[name] = String(part)
            }
        }
        return parameters
    }
}
