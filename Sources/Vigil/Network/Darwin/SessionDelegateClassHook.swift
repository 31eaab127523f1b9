#if canImport(Darwin) && !canImport(FoundationNetworking)
import Foundation
import ObjectiveC

/// Adds Vigil's observation to an app's session delegate class without replacing the delegate
/// object: `URLSession:didCreateTask:` (iOS 16+, called for every task, `async` ones included)
/// and `URLSession:task:didFinishCollectingMetrics:` are wrapped when the class implements
/// them (the app's code still runs, after Vigil's) and added when it does not.
///
/// URLSession reads what its delegate responds to when the session is made, so the class must
/// be hooked before its sessions are created.
enum SessionDelegateClassHook {
    static func install(on delegateClass: AnyClass) -> Bool {
        let created = wrapTwoArguments(delegateClass, NSSelectorFromString("URLSession:didCreateTask:")) { session, task in
            DarwinNetworkMonitor.shared.taskStarting(task, session: session)
        }
        let metrics = wrapMetrics(delegateClass)
        return created && metrics
    }

    /// `- (void)URLSession:(NSURLSession *)session didCreateTask:(NSURLSessionTask *)task`.
    private static func wrapTwoArguments(_ type: AnyClass, _ selector: Selector,
                                         _ body: @escaping (URLSession, URLSessionTask) -> Void) -> Bool {
        typealias Original = @convention(c) (AnyObject, Selector, URLSession, URLSessionTask) -> Void
        let inherited = class_getInstanceMethod(type, selector)
        let original = inherited.map { unsafeBitCast(method_getImplementation($0), to: Original.self) }
        let block: @convention(block) (AnyObject, URLSession, URLSessionTask) -> Void = { object, session, task in
            body(session, task)
            original?(object, selector, session, task)
        }
        return install(imp_implementationWithBlock(block), selector, on: type, types: "v@:@@")
    }

    /// `- (void)URLSession:task:didFinishCollectingMetrics:`.
    private static func wrapMetrics(_ type: AnyClass) -> Bool {
        let selector = NSSelectorFromString("URLSession:task:didFinishCollectingMetrics:")
        typealias Original = @convention(c) (AnyObject, Selector, URLSession, URLSessionTask, URLSessionTaskMetrics) -> Void
        let inherited = class_getInstanceMethod(type, selector)
        let original = inherited.map { unsafeBitCast(method_getImplementation($0), to: Original.self) }
        let block: @convention(block) (AnyObject, URLSession, URLSessionTask, URLSessionTaskMetrics) -> Void = {
            object, session, task, metrics in
            DarwinNetworkMonitor.shared.collected(metrics, task: task, session: session)
            original?(object, selector, session, task, metrics)
        }
        return install(imp_implementationWithBlock(block), selector, on: type, types: "v@:@@@")
    }

    /// Replaces the class's own implementation, or adds one to the class (shadowing an
    /// inherited one, which the block calls).
    private static func install(_ implementation: IMP, _ selector: Selector, on type: AnyClass, types: String) -> Bool {
        if class_addMethod(type, selector, implementation, types) { return true }
        guard let method = class_getInstanceMethod(type, selector) else { return false }
        method_setImplementation(method, implementation)
        return true
    }
}
#endif
