import Foundation

/// Demangles Swift names through the Swift runtime's `swift_demangle` and C++ names through the
/// C++ runtime's `__cxa_demangle`, and shortens them to the form Xcode shows.
///
/// Both runtimes are looked up with `dlsym` once; when one is missing, names of that language
/// come back unchanged. Thread-safe; each call allocates the result only.
public enum Demangler {
    /// The language a mangled name belongs to.
    public enum Language: String, Sendable {
        case swift
        case cplusplus = "c++"
    }

    /// The language of `name` from its mangling prefix, or `nil` for plain (C, Objective-C) names.
    public static func language(of name: String) -> Language? {
        let utf8 = name.utf8
        guard let first = utf8.first else { return nil }
        if first == UInt8(ascii: "$") {
            return name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("$e") ? .swift : nil
        }
        if first == UInt8(ascii: "_") {
            if name.hasPrefix("_T0") || name.hasPrefix("_$s") || name.hasPrefix("_$S") || name.hasPrefix("_$e") { return .swift }
            if name.hasPrefix("_Z") || name.hasPrefix("__Z") || name.hasPrefix("___Z") { return .cplusplus }
        }
        if name.hasPrefix("@__swiftmacro_") { return .swift }
        return nil
    }

    /// The demangled full name, or `name` itself when it is not mangled or cannot be demangled.
    public static func demangle(_ name: String) -> String {
        switch language(of: name) {
        case .swift: return swiftDemangle(name) ?? name
        case .cplusplus:
            var mangled = Substring(name)
            while mangled.hasPrefix("__") { mangled = mangled.dropFirst() }
            if let block = blockInvocation(mangled) { return block }
            return cxxDemangle(String(mangled)) ?? name
        case nil: return name
        }
    }

    /// A block inside a C++ function, `_ZL12RunWebThreadPv_block_invoke` (Clang's name for it;
    /// Mach-O symbol tables add underscores), spelled as atos and LLVM's demangler do:
    /// `invocation function for block in RunWebThread(void*)`. `_block_invoke_2` (the second
    /// block of a function) reads the same. Nil for other names.
    static func blockInvocation(_ mangled: Substring) -> String? {
        guard let marker = mangled.range(of: "_block_invoke", options: .backwards) else { return nil }
        let suffix = mangled[marker.upperBound...]
        guard suffix.isEmpty || (suffix.first == "_" && suffix.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) && suffix.count > 1) else {
            return nil
        }
        let function = String(mangled[..<marker.lowerBound])
        guard function.hasPrefix("_Z"), let demangled = cxxDemangle(function) else { return nil }
        return "invocation function for block in " + demangled
    }

    /// The short form of a demangled name: for Swift no module prefix and argument labels only
    /// (`Cart.add(_:count:)`), for C++ no parameter list (`ns::Cart::add`); other names as is.
    /// `mangled` (the raw name) tells the language.
    public static func simplify(_ demangled: String, mangled: String) -> String {
        switch language(of: mangled) {
        case .swift: return SwiftNameSimplifier.simplify(demangled)
        case .cplusplus: return CxxNameSimplifier.simplify(demangled)
        case nil: return demangled
        }
    }

    private typealias SwiftDemangle = @convention(c) (UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?,
                                                      UnsafeMutablePointer<Int>?, UInt32) -> UnsafeMutablePointer<CChar>?
    private typealias CxxDemangle = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?,
                                                    UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<CChar>?

    private static let swiftFunction: SwiftDemangle? = symbol("swift_demangle")
    private static let cxxFunction: CxxDemangle? = symbol("__cxa_demangle")

    private static func symbol<T>(_ name: String) -> T? {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2) // RTLD_DEFAULT
        #else
        let handle: UnsafeMutableRawPointer? = nil // RTLD_DEFAULT
        #endif
        guard let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: T.self)
    }

    /// Whether `swift_demangle` was found in the process.
    public static var canDemangleSwift: Bool { swiftFunction != nil }
    /// Whether `__cxa_demangle` was found in the process.
    public static var canDemangleCxx: Bool { cxxFunction != nil }

    private static func swiftDemangle(_ name: String) -> String? {
        guard let function = swiftFunction else { return nil }
        return name.withCString { pointer -> String? in
            guard let result = function(pointer, strlen(pointer), nil, nil, 0) else { return nil }
            defer { free(result) }
            return String(cString: result)
        }
    }

    private static func cxxDemangle(_ name: String) -> String? {
        guard let function = cxxFunction else { return nil }
        return name.withCString { pointer -> String? in
            var status: Int32 = 0
            guard let result = function(pointer, nil, nil, &status) else { return nil }
            defer { free(result) }
            return status == 0 ? String(cString: result) : nil
        }
    }
}
