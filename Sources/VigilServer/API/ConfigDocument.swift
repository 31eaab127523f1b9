import Foundation

/// Checks a remote-configuration document before `PUT /api/v1/config` stores it.
///
/// Until the SDK's `RemoteConfig` type is available to the server, a document is accepted when
/// it is a JSON object of at most 64 KiB whose known fields have the right types; it is stored
/// in the compact form the tape parser read. Unknown fields are kept, as the SDK ignores them.
public enum ConfigDocument {
    /// Largest document, in bytes.
    public static let maximumBytes = 64 * 1024

    /// The default served when a project has no document: everything on, the SDK's defaults.
    public static let defaultDocument = "{\"schema\":1,\"enabled\":true}"

    /// The document to store, or a reason for refusing `body`.
    public static func validate(_ body: Data) -> Result<String, HTTPError> {
        guard body.count <= maximumBytes else {
            return .failure(.badRequest("the document is \(body.count) bytes; at most \(maximumBytes)", code: "invalid_config"))
        }
        let tape: JSONTape
        do {
            tape = try JSONTape(bytes: [UInt8](body))
        } catch {
            return .failure(.badRequest("the document is not JSON: \(error)", code: "invalid_config"))
        }
        guard tape.nodes[0].kind == .object else {
            return .failure(.badRequest("the document must be a JSON object", code: "invalid_config"))
        }
        let expected: [(String, JSONTape.Kind)] = [
            ("schema", .number), ("enabled", .bool), ("modules", .object), ("sampling", .object),
            ("hangThresholdMs", .number), ("refreshSeconds", .number), ("upload", .object),
        ]
        for (field, kind) in expected {
            guard let node = tape.member(0, field), tape.nodes[node].kind != .null else { continue }
            guard tape.nodes[node].kind == kind else {
                return .failure(.badRequest("\(field): expected \(kind)", code: "invalid_config"))
            }
        }
        if let sampling = tape.member(0, "sampling") {
            var child = sampling + 1
            for _ in 0..<tape.nodes[sampling].count {
                let value = child + 1
                let name = tape.string(child)
                guard tape.nodes[value].kind == .number, let rate = Double(tape.text(value)), (0...1).contains(rate) else {
                    return .failure(.badRequest("sampling.\(name): expected a number from 0 to 1", code: "invalid_config"))
                }
                child = Int(tape.nodes[value].next)
            }
        }
        if let schema = tape.member(0, "schema"), let value = Int(tape.text(schema)), value < 1 {
            return .failure(.badRequest("schema: must be 1 or later", code: "invalid_config"))
        }
        return .success(String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
