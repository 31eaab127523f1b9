import CFuzzDriver
import Foundation
import FuzzSupport
import VigilServer

/// Feeds the input to the server's streaming ``GzipInflater`` in the pieces a connection might
/// deliver, with an output limit the input chooses, the way a gzip request body arrives: never
/// a trap; the sink never receives more than the limit; the pieces give the same outcome and the
/// same bytes as inflating the body in one go; and gzip written by ``GzipDeflater`` (one member or
/// two concatenated) inflates back to what was compressed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzipInflater(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limit = Int64(input.int(in: 0...70_000))
    let splitSeed = input.u32()
    let compressFirst = input.byte() % 4
    var body = input.rest()
    var expected: [UInt8]?
    if compressFirst == 1 || compressFirst == 2 {
        // A body a client really sent: one member, or the same member twice (`cat a.gz a.gz`).
        guard let member = try? GzipDeflater.compress(Data(body), level: Int32(splitSeed % 10)) else {
            fatalError("GzipDeflater refused \(body.count) bytes")
        }
        expected = compressFirst == 1 ? body : body + body
        body = compressFirst == 1 ? [UInt8](member) : [UInt8](member) + [UInt8](member)
    }

    let pieces = inflateInPieces(body, limit: limit, seed: splitSeed)
    let whole = Result { [UInt8](try GzipInflater.inflate(Data(body), limit: limit)) }
    switch (pieces, whole) {
    case (.success(let left), .success(let right)):
        fuzzCheck(left == right, "pieces gave \(left.count) bytes, one go \(right.count)")
        fuzzCheck(Int64(left.count) <= limit, "\(left.count) bytes inflated with a limit of \(limit)")
        if let expected { fuzzCheck(left == expected, "a GzipDeflater body inflated to other bytes") }
    case (.failure, .failure):
        if let expected { fuzzCheck(Int64(expected.count) > limit, "a GzipDeflater body of \(expected.count) bytes was refused") }
    default:
        fatalError("pieces and one go disagree: \(pieces.map(\.count)) vs \(whole.map(\.count))")
    }
    return 0
}

/// Inflates `body` through one inflater, fed in pieces of 0 to 1,500 bytes.
private func inflateInPieces(_ body: [UInt8], limit: Int64, seed: UInt32) -> Result<[UInt8], any Error> {
    Result {
        let inflater = try GzipInflater(limit: limit)
        var output: [UInt8] = []
        var state = seed | 1
        var fed = 0
        while fed < body.count {
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            let end = min(body.count, fed + Int(state % 1501))
            try body[fed..<end].withUnsafeBytes { piece in
                try inflater.feed(piece) { chunk in
                    output.append(contentsOf: chunk)
                    fuzzCheck(Int64(output.count) <= limit, "the sink received \(output.count) bytes with a limit of \(limit)")
                }
            }
            fed = end
        }
        try inflater.finish()
        fuzzCheck(inflater.produced == Int64(output.count), "produced \(inflater.produced), sink got \(output.count)")
        return output
    }
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzGzipInflater_main")
public func fuzzGzipInflaterMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzGzipInflater(data, size)
    }
}
