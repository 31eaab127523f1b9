import CFuzzDriver
import FuzzSupport
import VigilBLE

/// The terminal's side of authenticated commands fed hostile frames: the input is a list of
/// records — raw bytes, or a frame sealed with the test key (counter, command and body from the
/// input, optionally with one byte flipped afterwards) — joined into a request stream that goes
/// through a ``FrameReassembler`` in pieces, each frame through ``AuthenticatedFrame`` decoding
/// and a ``TerminalCommandGuard`` (with or without a session key, as the first byte says).
/// Asserts: never a trap; a payload decodes iff it holds counter and tag, and re-encodes to
/// itself; accepted counters strictly increase and a refusal changes no state; an accepted frame
/// verifies under the key; a refusal answer verifies and names the refused counter. A second
/// guard fed the sealed records directly is checked against the exact rule: accepted iff not
/// flipped and the counter is above the last accepted.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthenticatedFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let withKey = input.bool()
    let splitSeed = input.u32()
    let allowed: Set<UInt8> = [0x01, 0x02, 0x03, 0x04, 0x10]
    let key = SessionKey(macKey: [UInt8](repeating: 0x42, count: 16), phoneNonce: [UInt8](repeating: 1, count: 16),
                         terminalNonce: [UInt8](repeating: 2, count: 16))
    let checks = KeyCheckValues(pin: [0, 0, 0, 0], mac: [0, 0, 0, 0], data: [0, 0, 0, 0])
    var streamGuard = TerminalCommandGuard(allowedBeforeKey: allowed)
    var directGuard = TerminalCommandGuard(allowedBeforeKey: allowed)
    if withKey {
        for index in 0..<2 {
            let confirmation = index == 0
                ? streamGuard.establish(macKey: [UInt8](repeating: 0x42, count: 16), phoneNonce: [UInt8](repeating: 1, count: 16),
                                        terminalNonce: [UInt8](repeating: 2, count: 16), checkValues: checks)
                : directGuard.establish(macKey: [UInt8](repeating: 0x42, count: 16), phoneNonce: [UInt8](repeating: 1, count: 16),
                                        terminalNonce: [UInt8](repeating: 2, count: 16), checkValues: checks)
            fuzzCheck(confirmation == key.confirmation(phoneNonce: [UInt8](repeating: 1, count: 16),
                                                       terminalNonce: [UInt8](repeating: 2, count: 16), checkValues: checks),
                      "the guard's confirmation differs from the session key's")
        }
    }

    var stream: [UInt8] = []
    while !input.isAtEnd && stream.count < 16_384 {
        let kind = input.byte()
        if kind & 1 == 0 {
            stream += input.bytes(Int(input.byte()))
            continue
        }
        let command = input.byte() & 0x7F
        let counter = input.u32()
        let body = input.bytes(Int(input.byte()))
        var frame = AuthenticatedFrame(command: command, counter: counter, body: body, key: key).frame
        let flipped = kind & 2 != 0
        if flipped {
            let position = Int(input.u16()) % frame.payload.count
            frame.payload[position] ^= 1 << (input.byte() % 8)
        }
        if withKey {
            let before = directGuard.lastAcceptedCounter
            let verdict = directGuard.check(frame)
            let shouldAccept = !flipped && counter > before
            if case .accepted = verdict {
                fuzzCheck(shouldAccept, "a \(flipped ? "flipped" : "stale") frame (counter \(counter), last \(before)) was accepted")
            } else {
                fuzzCheck(!shouldAccept, "a sealed frame with counter \(counter) above \(before) was refused")
            }
        }
        if let bytes = try? frame.encoded(in: FramedTerminalAdapter.format) { stream += bytes }
    }

    var reassembler = FrameReassembler(format: FramedTerminalAdapter.format)
    var fed = 0
    var state = splitSeed | 1
    while fed < stream.count {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5
        let end = min(stream.count, fed + Int(state % 41))
        for case .frame(let frame) in reassembler.append(stream[fed..<end]) {
            if let decoded = try? AuthenticatedFrame(decoding: frame) {
                fuzzCheck(frame.payload.count >= AuthenticatedFrame.overhead && decoded.frame == frame, "decoding does not round-trip")
            } else {
                fuzzCheck(frame.payload.count < AuthenticatedFrame.overhead, "a payload of \(frame.payload.count) bytes did not decode")
            }
            let before = streamGuard.lastAcceptedCounter
            switch streamGuard.check(frame) {
            case .accepted(let command, let counter, let body):
                if let counter {
                    let decoded = try? AuthenticatedFrame(decoding: frame)
                    fuzzCheck(withKey && counter > before && streamGuard.lastAcceptedCounter == counter, "counter \(counter) accepted after \(before)")
                    fuzzCheck(decoded?.isAuthentic(under: key) == true && decoded?.body == body, "an accepted frame does not verify")
                } else {
                    fuzzCheck(!withKey && allowed.contains(command) && body == frame.payload, "command \(command) accepted plain")
                }
            case .refused(let command, let counter, let error):
                fuzzCheck(streamGuard.lastAcceptedCounter == before, "a refusal moved the counter")
                let answer = streamGuard.answer(refusing: command, counter: counter, error: error)
                if withKey {
                    let decoded = try? AuthenticatedFrame(decoding: answer)
                    fuzzCheck(decoded?.isAuthentic(under: key) == true && decoded?.counter == counter && decoded?.body == [error.status],
                              "a refusal answer does not verify")
                } else {
                    fuzzCheck(answer.payload == [error.status] && error == .noSessionKey, "a refusal before the key: \(error)")
                }
            }
        }
        fed = end
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzAuthenticatedFrame_main")
public func fuzzAuthenticatedFrameMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzAuthenticatedFrame(data, size)
    }
}
