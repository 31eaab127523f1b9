import CFuzzDriver
import Foundation
import VigilCore

/// Reads the input as a remote configuration document, the server's way (parse, validate) and
/// the SDK's way (clamp or fall back): never a trap, and what the SDK runs with is always in range.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    if let document = try? RemoteConfig.parse(body) {
        _ = document.validationIssues()
        _ = document.encoded()
    }
    let (configuration, _) = RemoteConfig.decodeForSDK(body)
    if !configuration.validationIssues().isEmpty {
        fatalError("the SDK would run with out-of-range values: \(configuration.validationIssues())")
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzRemoteConfig_main")
public func fuzzRemoteConfigMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzRemoteConfig(data, size)
    }
}
