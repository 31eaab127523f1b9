import CFuzzDriver
import Foundation
import VigilCore

/// Reads the input as what an app's request brings the SDK from outside: a URL (split and
/// templated) and a `traceparent` header (parsed, written back, parsed again to the same
/// value). Never a trap; a template always starts with the URL's origin.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestURL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var rules = URLTemplateRules()
    rules.query = size % 2 == 0 ? .foldedValues : .names
    rules.keepFragment = size % 3 == 0
    rules.routes = ["/users/:id/posts/:post", "api.example.com/v1/:thing"]
    let parts = URLParts(text)
    let template = URLTemplater(rules: rules).template(parts)
    guard template.hasPrefix(parts.origin) else { fatalError("template \(template) lost the origin \(parts.origin)") }
    if let parent = TraceParent(header: text) {
        guard TraceParent(header: parent.header) == parent else { fatalError("traceparent did not round-trip: \(text)") }
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzRequestURL_main")
public func fuzzRequestURLMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzRequestURL(data, size)
    }
}
