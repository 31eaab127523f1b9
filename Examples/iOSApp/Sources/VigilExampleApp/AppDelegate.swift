#if canImport(UIKit)
import UIKit
import Vigil

/// Starts Vigil first thing, then shows the demo screen.
@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    var window: UIWindow?

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let settings = ExampleSettings.fromEnvironment()
        Vigil.start(VigilSetup(app: .main, serverURL: settings.serverURL, ingestKey: settings.ingestKey,
                               tags: ["example": "ios-app"]))
        Vigil.markDidFinishLaunching()

        let window = UIWindow(frame: UIScreen.main.bounds)
        window.rootViewController = UINavigationController(rootViewController: DemoViewController(settings: settings))
        window.makeKeyAndVisible()
        self.window = window
        return true
    }
}
#endif
