/// A graph file that could not be read: the field's path (`tasks[3].lane`) and what is wrong.
public struct LaunchGraphFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where: a key path such as `tasks[3].durationMs`, or `the document`.
    public var path: String
    /// What is wrong there.
    public var message: String

    /// An error at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
