import CFuzzDriver
import Foundation
import VigilCore
import VigilServer

/// Decodes the input as an ingest body (JSON array or JSON lines) the way `POST /api/v1/events`
/// does: it must never trap, and every event it accepts must survive encoding and decoding
/// again unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventBatch(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    guard let slots = try? EventBatchDecoder.decode(input) else { return 0 }
    for slot in slots {
        guard case .success(let decoded) = slot else { continue }
        guard let encoded = try? EventJSON.encode(decoded.event),
              let again = try? EventBatchDecoder.decode(encoded).first?.get() else {
            fatalError("an accepted event does not decode after encoding: \(decoded.event.id)")
        }
        if again.event != decoded.event { fatalError("an accepted event changed in a round trip: \(decoded.event.id)") }
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzEventBatch_main")
public func fuzzEventBatchMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzEventBatch(data, size)
    }
}
