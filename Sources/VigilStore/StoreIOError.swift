/// A failed file operation of the store, with the operation, the path and the `errno`.
public struct StoreIOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system call or step that failed, e.g. `write`, `rename`.
    public var operation: String
    /// The file or directory it was applied to.
    public var path: String
    /// The `errno` value (`ENOSPC` for a full disk).
    public var code: Int32

    /// Makes an error.
    public init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String { "\(operation) \(path): errno \(code)" }
}
