import CFuzzDriver
import Foundation
import VigilTransport

/// Reads the input as a server's answer to an upload, and classifies it as the uploader would
/// with several statuses: never a trap, and a 2xx answer that parses always yields a disposition.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIngestResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    _ = try? IngestResponse.parse(body)
    let retryAfter = String(decoding: body.prefix(40), as: UTF8.self)
    for status in [200, 413, 429, 503] {
        let response = HTTPResponse(status: status, headers: ["Retry-After": retryAfter], body: body)
        _ = UploadDisposition.classify(.success(response), now: Date(timeIntervalSince1970: 1_800_000_000))
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzIngestResponse_main")
public func fuzzIngestResponseMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzIngestResponse(data, size)
    }
}
