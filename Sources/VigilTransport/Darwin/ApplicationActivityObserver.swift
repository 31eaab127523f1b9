#if canImport(Darwin)
import Foundation

/// ``AppActivityProvider`` fed by UIKit's application notifications.
///
/// The notification names are used by their string values so that this file needs neither
/// UIKit nor the main actor; on macOS they never fire and the app counts as foreground.
public final class ApplicationActivityObserver: AppActivityProvider, @unchecked Sendable {
    private static let didEnterBackground = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    private static let willEnterForeground = Notification.Name("UIApplicationWillEnterForegroundNotification")

    private let lock = NSLock()
    private var background = false
    private var handler: (@Sendable (Bool) -> Void)?
    private var tokens: [NSObjectProtocol] = []
    private let center: NotificationCenter

    /// Whether the uploader's HTTP client is a ``BackgroundSessionHTTPClient`` (then uploads
    /// continue in the background).
    public let backgroundUploadsAvailable: Bool

    /// Observes `center` (the default center in an app).
    public init(backgroundUploadsAvailable: Bool = false, center: NotificationCenter = .default) {
        self.backgroundUploadsAvailable = backgroundUploadsAvailable
        self.center = center
        tokens.append(center.addObserver(forName: Self.didEnterBackground, object: nil, queue: nil) { [weak self] _ in
            self?.set(inBackground: true)
        })
        tokens.append(center.addObserver(forName: Self.willEnterForeground, object: nil, queue: nil) { [weak self] _ in
            self?.set(inBackground: false)
        })
    }

    deinit {
        for token in tokens { center.removeObserver(token) }
    }

    public var isInBackground: Bool {
        lock.lock()
        defer { lock.unlock() }
        return background
    }

    public func onChange(_ handler: @escaping @Sendable (Bool) -> Void) {
        lock.lock()
        self.handler = handler
        lock.unlock()
    }

    private func set(inBackground value: Bool) {
        lock.lock()
        let changed = value != background
        background = value
        let handler = self.handler
        lock.unlock()
        if changed { handler?(value) }
    }
}
#endif
