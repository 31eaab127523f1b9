/// Whether the app is in the foreground, and whether uploads may continue in the
/// background. Apple platforms use `ApplicationActivityObserver`; elsewhere
/// ``ForegroundActivityProvider``.
public protocol AppActivityProvider: Sendable {
    /// Whether the app is in the background now.
    var isInBackground: Bool { get }
    /// Whether a background transfer session can carry uploads while the app is in the
    /// background (Apple: `URLSessionConfiguration.background`).
    var backgroundUploadsAvailable: Bool { get }
    /// Registers the one handler called (on any thread) when the app enters (`true`) or
    /// leaves (`false`) the background.
    func onChange(_ handler: @escaping @Sendable (_ inBackground: Bool) -> Void)
}

/// A process that is always in the foreground: command-line tools, servers, Linux.
public struct ForegroundActivityProvider: AppActivityProvider {
    /// The provider for a process that never goes to the background.
    public init() {}
    public var isInBackground: Bool { false }
    public var backgroundUploadsAvailable: Bool { false }
    public func onChange(_ handler: @escaping @Sendable (Bool) -> Void) {}
}
