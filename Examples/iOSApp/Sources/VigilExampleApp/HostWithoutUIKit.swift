#if !canImport(UIKit)
/// The example is an iOS app; on a host without UIKit (a macOS or Linux `swift build`) it only
/// says so, so that the package still builds there.
@main
enum HostWithoutUIKit {
    static func main() {
        print("VigilExampleApp is an iOS app: build it with xcodebuild for an iOS destination (see README.md)")
    }
}
#endif
