import CFuzzDriver
import Foundation
import VigilSymbols

/// Demangles the input (as UTF-8, possibly repaired) and simplifies the result as Swift and
/// as C++: the simplifiers parse brackets and phrases of arbitrary text and must never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDemangler(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let demangled = Demangler.demangle(text)
    _ = Demangler.simplify(demangled, mangled: text)
    _ = Demangler.simplify(text, mangled: "$s")   // arbitrary text through the Swift simplifier
    _ = Demangler.simplify(text, mangled: "_Z")   // and through the C++ one
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzDemangler_main")
public func fuzzDemanglerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzDemangler(data, size)
    }
}
