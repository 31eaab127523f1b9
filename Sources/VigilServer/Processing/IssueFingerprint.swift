import VigilCore

/// What groups crashes and hangs into issues: the failure's class (exception type or signal,
/// or `hang`) and the function names of the top in-app frames, never addresses, so the same
/// bug in two builds lands in one issue.
///
/// Before symbols exist a frame has no function name; then its image name and offset stand in
/// and the fingerprint is marked provisional. Uploading the symbols re-processes the events,
/// which moves them to the issue of their real, build-independent fingerprint.
public struct IssueFingerprint: Sendable, Hashable {
    /// `crash` or `hang`.
    public var kind: String
    /// Exception type, signal, or `hang`.
    public var failureClass: String
    /// The frames that went in, as labels.
    public var frames: [String]
    /// Whether an unsymbolicated frame went in (the group may split once symbols arrive).
    public var provisional: Bool
    /// The stable hash: 32 hex digits of SHA-256 over the parts.
    public var value: String

    /// A fingerprint computed elsewhere (a ``CrashAnalyzer``).
    public init(kind: String, failureClass: String, frames: [String], provisional: Bool, value: String) {
        self.kind = kind
        self.failureClass = failureClass
        self.frames = frames
        self.provisional = provisional
        self.value = value
    }

    /// How many frames a fingerprint uses.
    public static let depth = 3

    /// The fingerprint of a failure of `failureClass` with `stack` (innermost first).
    public init(kind: String, failureClass: String, stack: [ResolvedFrame]) {
        self.kind = kind
        self.failureClass = failureClass
        var chosen: [ResolvedFrame] = stack.filter(\.inApp)
        if chosen.isEmpty { chosen = stack.filter { $0.function != nil } }
        if chosen.isEmpty { chosen = stack }
        var labels: [String] = []
        var provisional = false
        for frame in chosen {
            let label: String
            if let function = frame.function {
                label = function
            } else if let image = frame.image, let offset = frame.offset {
                label = "\(image)+0x\(String(offset, radix: 16))"
                provisional = true
            } else {
                // An address outside every image says nothing stable; skip it.
                continue
            }
            // Recursion and inlining repeat names; one occurrence in a row is enough.
            if labels.last == label { continue }
            labels.append(label)
            if labels.count == Self.depth { break }
        }
        self.frames = labels
        self.provisional = provisional
        let text = ([kind, failureClass] + labels).joined(separator: "\n")
        value = String(SecretToken.hash(text).prefix(32))
    }
}
