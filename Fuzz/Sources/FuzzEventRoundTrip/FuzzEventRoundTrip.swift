import CFuzzDriver
import Foundation
import FuzzSupport
import VigilCore
import VigilServer
import VigilStore

/// Reads the input as an ingest body (repair UTF-8, decode the batch event by event) with
/// `EventJSON.decodeBatch` and with the server's `EventBatchDecoder`, then sanitizes and
/// re-encodes every event: never a trap; both decoders agree slot by slot (the same events,
/// rejections at the same index with the same id), except where the server refuses text that is
/// not JSON which Foundation's lazier decoder reads, or the body escapes a lone UTF-16
/// surrogate; every slot is accounted for; sanitizing
/// twice changes nothing the second time; and decode → sanitize → encode → decode gives an
/// equal event, through `EventJSON` and through the store's `EventJSONWriter` alike.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventRoundTrip(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = EventSanitizer.repairUTF8(Data(bytes: data, count: size))
    fuzzCheck(String(validating: body, as: UTF8.self) != nil, "repairUTF8 left invalid UTF-8")
    let reference = Result { try EventJSON.decodeBatch(body) }
    let server = Result { try EventBatchDecoder.decode(body) }
    // Foundation refuses a document with a lone UTF-16 surrogate escape where the tape reads
    // U+FFFD: the decoders are compared only on bodies without one.
    let comparable = !hasLoneSurrogateEscape([UInt8](body))
    let results: [Result<Event, EventDecodingFailure>]
    switch (reference, server) {
    case (.failure, .failure):
        return 0
    case (.success(let decoded), .success(let tape)):
        results = decoded
        if comparable { checkAgreement(decoded, tape) }
    case (.success(let decoded), .failure(let error)) where isNotJSON(error) || !comparable:
        // Foundation's decoder checks a string's characters only when it reads that string.
        results = decoded
    case (.failure, .success) where !comparable:
        return 0
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
            fuzzCheck(failure.index == rejection.index && (failure.id == rejection.id || isNotJSON(rejection)),
                      "slot \(index): rejected as \(failure) and as \(rejection)")
        case (.success, .failure(let rejection)) where isNotJSON(rejection):
            continue
        default:
            fatalError("slot \(index): the decoders disagree: \(left) vs \(right)")
        }
    }
}

/// Whether the server refused text that is not JSON (RFC 8259) at all, e.g. a raw control
/// character inside a string. Foundation's `JSONDecoder` checks a string's characters only when
/// it decodes that string, so it may still read an event (or the id of a rejected one) from such
/// a line, where the tape refuses the line as a whole: the one known difference between the two.
private func isNotJSON(_ error: any Error) -> Bool {
    if let rejection = error as? EventRejection { return rejection.reason.hasPrefix("the document: invalid JSON") }
    if case .malformedBody(let reason)? = error as? EventBatchError { return reason.hasPrefix("the document: invalid JSON") }
    return false
}

/// Whether `bytes` hold a `\uD800`–`\uDFFF` escape that is not half of a surrogate pair.
private func hasLoneSurrogateEscape(_ bytes: [UInt8]) -> Bool {
    func surrogate(at index: Int) -> (high: Bool, low: Bool) {
        guard index + 5 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
              bytes[index + 2] | 0x20 == UInt8(ascii: "d") else { return (false, false) }
        let nibble = bytes[index + 3] | 0x20
        let high = (UInt8(ascii: "8")...UInt8(ascii: "9")).contains(nibble) || (UInt8(ascii: "a")...UInt8(ascii: "b")).contains(nibble)
        let low = (UInt8(ascii: "c")...UInt8(ascii: "f")).contains(nibble)
        return (high, low)
    }
    var index = 0
    while index < bytes.count {
        let here = surrogate(at: index)
        if here.high {
            guard surrogate(at: index + 6).low else { return true }
            index += 12
        } else if here.low {
            return true
        } else {
            index += 1
        }
    }
    return false
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
