/// A moment of the launch the runtime or the app reports to the ``LaunchTimeline``.
public enum LaunchMark: String, Sendable, Hashable, CaseIterable, Codable {
    /// `Vigil.start` ran.
    case sdkStart
    /// `main` was entered (or the earliest point the runtime can observe after it).
    case main
    /// `application(_:didFinishLaunchingWithOptions:)` returned (or the app's equivalent).
    case didFinishLaunching
    /// An existing process came back to the foreground (the origin of a `resume` launch).
    case foregroundEntry
    /// The first frame was rendered: time to initial display.
    case firstFrame
    /// The app reported its first screen fully drawn: time to full display.
    case fullyDrawn

    /// Position in the order marks must respect; nil for marks that may come anywhere
    /// (SDK start can run before `main` in a static initializer or inside didFinishLaunching).
    var rank: Int? {
        switch self {
        case .main: return 1
        case .didFinishLaunching: return 2
        case .foregroundEntry: return 2
        case .firstFrame: return 3
        case .fullyDrawn: return 4
        case .sdkStart: return nil
        }
    }
}
