import CFuzzDriver
import Foundation
import FuzzSupport
import VigilCore
import VigilServer
import VigilStore

/// Reads the input as an ingest body (repair UTF-8, decode the batch event by event) with
/// `EventJSON.decodeBatch` and with the server's `EventBatchDecoder`, then sanitizes and
/// re-encodes every event: never a trap; both decoders agree slot by slot (the same events,
/// rejections at the same index with the same id); every slot is accounted for; sanitizing
/// twice changes nothing the second time; and decode → sanitize → encode → decode gives an
/// equal event, through `EventJSON` and through the store's `EventJSONWriter` alike.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventRoundTrip(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = EventSanitizer.repairUTF8(Data(bytes: data, count: size))
    fuzzCheck(String(validating: body, as: UTF8.self) != nil, "repairUTF8 left invalid UTF-8")
    let reference = Result { try EventJSON.decodeBatch(body) }
    let server = Result { try EventBatchDecoder.decode(body) }
    let results: [Result<Event, EventDecodingFailure>]
    switch (reference, server) {
    case (.failure, .failure):
        return 0
    case (.success(let decoded), .success(let tape)):
        results = decoded
        checkAgreement(decoded, tape)
    default:
        fatalError("one decoder refused the whole body: \(reference) vs \(server)")
    }

    let sanitizer = EventSanitizer()
    for (index, result) in results.enumerated() {
        switch result {
        case .failure(let failure):
            fuzzCheck(failure.index == index && !failure.reason.isEmpty, "slot \(index) failed as \(failure)")
            fuzzCheck((failure.id?.count ?? 0) <= 64, "a failure echoes an id of \(failure.id?.count ?? 0) characters")
        case .success(let event):
            var clean = event
            sanitizer.sanitize(&clean)
            var twice = clean
            let second = sanitizer.sanitize(&twice)
            fuzzCheck(!second.changed && twice == clean,
                      "sanitizing twice changed \(second): " + (firstDifference(clean, twice) ?? "no leaf differs"))

            guard let encoded = try? EventJSON.encode(clean) else { fatalError("a sanitized event does not encode") }
            let decoded: Event
            do { decoded = try EventJSON.decode(encoded) } catch {
                fatalError("EventJSON output does not decode: \(EventJSON.describe(error))\n"
                    + String(decoding: encoded, as: UTF8.self))
            }
            fuzzCheck(decoded == clean, "decode → sanitize → encode → decode changed "
                + (firstDifference(clean, decoded) ?? "the event (no leaf differs)") + "\n" + String(decoding: encoded, as: UTF8.self))

            let written = EventJSONWriter.encode(clean)
            let read: Event
            do { read = try EventJSON.decode(written) } catch {
                fatalError("EventJSONWriter output does not decode: \(EventJSON.describe(error))\n"
                    + String(decoding: written, as: UTF8.self))
            }
            fuzzCheck(read == clean, "EventJSONWriter changed " + (firstDifference(clean, read) ?? "the event (no leaf differs)")
                + "\n" + String(decoding: written, as: UTF8.self))
        }
    }
    return 0
}

/// The server's decoder promises `EventJSON.decodeBatch`'s outcomes, several times faster.
private func checkAgreement(_ reference: [Result<Event, EventDecodingFailure>],
                            _ tape: [Result<EventBatchDecoder.Decoded, EventRejection>]) {
    fuzzCheck(reference.count == tape.count, "\(reference.count) slots from EventJSON, \(tape.count) from the server")
    for (index, (left, right)) in zip(reference, tape).enumerated() {
        switch (left, right) {
        case (.success(let event), .success(let decoded)):
            fuzzCheck(event == decoded.event, "slot \(index): the decoders read different events: "
                + (firstDifference(event, decoded.event) ?? "no leaf differs"))
        case (.failure(let failure), .failure(let rejection)):
            fuzzCheck(failure.index == rejection.index && failure.id == rejection.id,
                      "slot \(index): rejected as \(failure) and as \(rejection)")
        default:
            fatalError("slot \(index): the decoders disagree: \(left) vs \(right)")
        }
    }
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzEventRoundTrip_main")
public func fuzzEventRoundTripMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzEventRoundTrip(data, size)
    }
}
