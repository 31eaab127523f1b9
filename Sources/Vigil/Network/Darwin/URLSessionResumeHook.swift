#if canImport(Darwin) && !canImport(FoundationNetworking)
import Foundation
import ObjectiveC

/// A guarded hook on `-[NSURLSessionTask resume]`: the one call every task goes through on every
/// system version (completion handlers, delegates and `async` calls alike), so systems without
/// `urlSession(_:didCreateTask:)` still see each task start.
///
/// The concrete task classes are private and each may implement `resume` itself, so every
/// class in the hierarchy of a sample data, upload and download task that defines its own
/// `resume` gets a replacement that calls the handler, then the original implementation.
/// Installed once per process under a lock; a task seen twice (a subclass calling `super`) is
/// recorded once because the ledger keeps the first start.
enum URLSessionResumeHook {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = false
    nonisolated(unsafe) private static var handler: (@Sendable (URLSessionTask) -> Void)?

    /// Installs the hook (the first time) and makes `handler` the one it calls.
    static func install(_ handler: @escaping @Sendable (URLSessionTask) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        self.handler = handler
        guard !installed else { return }
        installed = true
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        guard let url = URL(string: "https://127.0.0.1/") else { return }
        let samples: [URLSessionTask] = [session.dataTask(with: url),
                                         session.uploadTask(with: URLRequest(url: url), from: Data()),
                                         session.downloadTask(with: url)]
        var hooked = Set<ObjectIdentifier>()
        for sample in samples {
            var current: AnyClass? = object_getClass(sample)
            while let type = current, type != NSObject.self {
                if definesResume(type), hooked.insert(ObjectIdentifier(type)).inserted { replaceResume(of: type) }
                current = class_getSuperclass(type)
            }
        }
    }

    private static var currentHandler: (@Sendable (URLSessionTask) -> Void)? {
        lock.lock(); defer { lock.unlock() }
        return handler
    }

    /// Whether `type` itself (not a superclass) implements `resume`.
    private static func definesResume(_ type: AnyClass) -> Bool {
        var count: UInt32 = 0
        guard let methods = class_copyMethodList(type, &count) else { return false }
        defer { free(methods) }
        let selector = #selector(URLSessionTask.resume)
        for index in 0..<Int(count) where method_getName(methods[index]) == selector { return true }
        return false
    }

    private static func replaceResume(of type: AnyClass) {
        let selector = #selector(URLSessionTask.resume)
        guard let method = class_getInstanceMethod(type, selector) else { return }
        typealias Resume = @convention(c) (AnyObject, Selector) -> Void
        let original = unsafeBitCast(method_getImplementation(method), to: Resume.self)
        let replacement: @convention(block) (AnyObject) -> Void = { object in
            if let task = object as? URLSessionTask, task.state == .suspended { currentHandler?(task) }
            original(object, selector)
        }
        method_setImplementation(method, imp_implementationWithBlock(replacement))
    }
}
#endif
