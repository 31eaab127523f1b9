import CFuzzDriver
import Foundation
import VigilCore

/// Reads the input as an OTLP/JSON traces request the way the server's `/v1/traces` does
/// (decode, then import each span): never a trap, and every imported span has valid ids and
/// ends no earlier than it starts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOTLPTraces(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    guard let request = try? OTLPJSON.decodeTraces(body) else { return 0 }
    let result = OTLPSpanImporter(maximumSpans: 1000).events(from: request)
    for event in result.events {
        guard case .span(let span) = event.payload else { fatalError("an OTLP span became a \(event.type) event") }
        guard TraceIdentifier.isValid(span.traceId, hexDigits: 32), TraceIdentifier.isValid(span.spanId, hexDigits: 16),
              span.parentSpanId.map({ TraceIdentifier.isValid($0, hexDigits: 16) }) ?? true, span.end >= span.start
        else { fatalError("an invalid span was imported: \(span)") }
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzOTLPTraces_main")
public func fuzzOTLPTracesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzOTLPTraces(data, size)
    }
}
