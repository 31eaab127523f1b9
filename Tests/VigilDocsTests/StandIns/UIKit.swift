// A stand-in for UIKit with just the declarations the documentation's snippets use, shaped like
// the real ones (main-actor classes, the delegate's `main()`), so that the snippets type-check
// on Linux. The real UIKit checks the example app (Examples/iOSApp) on Apple platforms.
@_exported import Foundation

@MainActor
open class UIResponder {
    public init() {}
}

@MainActor
public protocol UIApplicationDelegate: AnyObject {}

extension UIApplicationDelegate {
    /// What `@main` calls; the real one runs `UIApplicationMain`.
    public static func main() {}
}

@MainActor
open class UIApplication: UIResponder {
    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

@MainActor
open class UIViewController: UIResponder {
    open func viewDidLoad() {}
    open func viewDidAppear(_ animated: Bool) {}
}
