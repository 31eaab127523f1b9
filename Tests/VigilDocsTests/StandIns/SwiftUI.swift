// A stand-in for SwiftUI with just the declarations the documentation's snippets use, shaped like
// the real ones, so that the snippets type-check on Linux (SwiftUI's own interface does not
// load in this toolchain).
@_exported import Foundation

public protocol View {
    associatedtype Body: View
    @MainActor var body: Body { get }
}

extension Never: View {
    public var body: Never { fatalError("no body") }
}

public protocol Scene {}

@MainActor
public protocol App {
    associatedtype Body: Scene
    var body: Body { get }
    init()
}

extension App {
    /// What `@main` calls; the real one runs the app.
    public static func main() {}
}

public struct WindowGroup<Content: View>: Scene {
    public init(@ViewBuilder content: () -> Content) {}
}

@resultBuilder
public enum ViewBuilder {
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
}

public struct Text: View {
    public init(_ text: String) {}
    public var body: Never { fatalError("no body") }
}
