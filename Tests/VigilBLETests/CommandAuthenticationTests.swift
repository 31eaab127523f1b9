import Foundation
import Testing
import VigilBLE
import VigilBLESimulation
import VigilCore
import VigilTestSupport

private func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

@Suite("Command authentication: HMAC-SHA256, HKDF, the session key, authenticated frames and the terminal's guard")
struct CommandAuthenticationTests {
    @Test("HMAC-SHA256 matches RFC 4231 test case 2")
    func hmacVector() {
        #expect(HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
                == hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
    }

    @Test("HKDF-SHA256 matches RFC 5869 test cases 1, 2 and 3 (PRK and OKM)")
    func hkdfVectors() {
        let cases: [(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int, prk: String, okm: String)] = [
            ([UInt8](repeating: 0x0B, count: 22), Array(0x00...0x0C), Array(0xF0...0xF9), 42,
             "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
             "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
            (Array(0x00...0x4F), Array(0x60...0xAF), Array(0xB0...0xFF), 82,
             "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
             "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"),
            ([UInt8](repeating: 0x0B, count: 22), [], [], 42,
             "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
             "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
        ]
        for test in cases {
            let prk = HKDFSHA256.extract(salt: test.salt, inputKeyingMaterial: test.ikm)
            #expect(prk == hex(test.prk))
            #expect(HKDFSHA256.expand(pseudorandomKey: prk, info: test.info, length: test.length) == hex(test.okm))
        }
    }

    // The values below were computed independently with Python's hmac and hashlib and with the
    // openssl command line (`openssl kdf ... HKDF`, `openssl dgst -mac HMAC`); docs/ble-protocol.md
    // §4 prints the same vector and the Python that checks it.
    @Test("the session key, the key confirmation and a sealed card-transaction frame match the documented vector")
    func documentedVector() throws {
        let phoneNonce = Array(UInt8(0x10)...0x1F), terminalNonce = Array(UInt8(0x20)...0x2F)
        let key = SessionKey(macKey: Array(0x00...0x0F), phoneNonce: phoneNonce, terminalNonce: terminalNonce)
        #expect(key.bytes == hex("ca43e9f1823548a3141e2b928994c18e9d1e4b165db500c2a95e46c0be1273ab"))
        let checks = KeyCheckValues(pin: [1, 2, 3, 4], mac: [5, 6, 7, 8], data: [9, 10, 11, 12])
        #expect(key.confirmation(phoneNonce: phoneNonce, terminalNonce: terminalNonce, checkValues: checks) == hex("11d249ab1ec41ae84bee852e0e83fcb5"))
        let body: [UInt8] = [0, 0, 0, 0, 0, 0, 0x04, 0xE2, 0x03, 0xD2, 0x00, 0x3C]  // 12.50, EUR, sale, 60 s
        let sealed = AuthenticatedFrame(command: 0x20, counter: 1, body: body, key: key)
        #expect(sealed.tag == hex("b486d7175970f0a26c1b5e266c5a5e18"))
        #expect(try sealed.frame.encoded(in: FramedTerminalAdapter.format)
                == hex("aa552000200000000100000000000004e203d2003cb486d7175970f0a26c1b5e266c5a5e188835"))
        let decoded = try AuthenticatedFrame(decoding: sealed.frame)
        #expect(decoded == sealed && decoded.isAuthentic(under: key))
    }

    @Test("constant-time comparison: equal, different at the first or last byte, different lengths")
    func constantTimeCompare() {
        let a: [UInt8] = [1, 2, 3, 4]
        #expect(HMACSHA256.constantTimeEqual(a, [1, 2, 3, 4]))
        #expect(!HMACSHA256.constantTimeEqual(a, [0, 2, 3, 4]))
        #expect(!HMACSHA256.constantTimeEqual(a, [1, 2, 3, 5]))
        #expect(!HMACSHA256.constantTimeEqual(a, [1, 2, 3]))
        #expect(HMACSHA256.constantTimeEqual([UInt8](), [UInt8]()))
    }

    static let allowed: Set<UInt8> = [0x01, 0x02, 0x03, 0x04, 0x10]

    func establishedGuard() -> (TerminalCommandGuard, SessionKey) {
        var guardian = TerminalCommandGuard(allowedBeforeKey: Self.allowed)
        let phoneNonce = [UInt8](repeating: 7, count: 16), terminalNonce = [UInt8](repeating: 9, count: 16)
        let checks = KeyCheckValues(pin: [0, 0, 0, 0], mac: [0, 0, 0, 0], data: [0, 0, 0, 0])
        _ = guardian.establish(macKey: [UInt8](repeating: 0x42, count: 16), phoneNonce: phoneNonce, terminalNonce: terminalNonce, checkValues: checks)
        let key = SessionKey(macKey: [UInt8](repeating: 0x42, count: 16), phoneNonce: phoneNonce, terminalNonce: terminalNonce)
        return (guardian, key)
    }

    @Test("before the key: identification and the key update pass plain, anything else is refused as noSessionKey")
    func beforeKey() {
        var guardian = TerminalCommandGuard(allowedBeforeKey: Self.allowed)
        #expect(guardian.check(Frame(command: 0x02)) == .accepted(command: 0x02, counter: nil, body: []))
        #expect(guardian.check(Frame(command: 0x20, payload: [1, 2, 3])) == .refused(command: 0x20, counter: 0, .noSessionKey))
        #expect(guardian.answer(refusing: 0x20, counter: 0, error: .noSessionKey) == Frame(command: 0xA0, payload: [0xA0]))
        #expect(guardian.refusals == [0xA0: 1])
    }

    @Test("after the key: a sealed command passes once; a replay, an older counter, a flipped byte, a plain or short frame are refused and change nothing")
    func afterKey() throws {
        var (guardian, key) = establishedGuard()
        let first = AuthenticatedFrame(command: 0x20, counter: 1, body: [0xAB, 0xCD], key: key).frame
        let third = AuthenticatedFrame(command: 0x21, counter: 3, body: [0x30], key: key).frame
        #expect(guardian.check(first) == .accepted(command: 0x20, counter: 1, body: [0xAB, 0xCD]))
        #expect(guardian.check(third) == .accepted(command: 0x21, counter: 3, body: [0x30]))
        #expect(guardian.check(first) == .refused(command: 0x20, counter: 1, .staleCounter(received: 1, lastAccepted: 3)))
        #expect(guardian.check(third) == .refused(command: 0x21, counter: 3, .staleCounter(received: 3, lastAccepted: 3)))
        var flipped = AuthenticatedFrame(command: 0x20, counter: 4, body: [0xAB, 0xCD], key: key).frame
        flipped.payload[5] ^= 0x01
        #expect(guardian.check(flipped) == .refused(command: 0x20, counter: 4, .badTag))
        var renamed = AuthenticatedFrame(command: 0x20, counter: 5, body: [], key: key).frame
        renamed.command = 0x2F  // the tag covers the command byte
        #expect(guardian.check(renamed) == .refused(command: 0x2F, counter: 5, .badTag))
        let wrongKey = AuthenticatedFrame(command: 0x20, counter: 6, body: [], key: SessionKey(bytes: [UInt8](repeating: 1, count: 32))).frame
        #expect(guardian.check(wrongKey) == .refused(command: 0x20, counter: 6, .badTag))
        #expect(guardian.check(Frame(command: 0x02)) == .refused(command: 0x02, counter: 0, .truncated(length: 0)))
        #expect(guardian.lastAcceptedCounter == 3)
        // A refused frame did not move the counter: the phone's next real command still passes.
        #expect(guardian.check(AuthenticatedFrame(command: 0x2F, counter: 4, body: [], key: key).frame) == .accepted(command: 0x2F, counter: 4, body: []))
        // A refusal answer is sealed with the refused counter, so the phone can verify it.
        let answer = try AuthenticatedFrame(decoding: guardian.answer(refusing: 0x20, counter: 1, error: .staleCounter(received: 1, lastAccepted: 3)))
        #expect(answer.isAuthentic(under: key) && answer.counter == 1 && answer.body == [0xA2] && answer.command == 0xA0)
        guardian.reset()
        #expect(guardian.key == nil && guardian.check(first) == .refused(command: 0x20, counter: 0, .noSessionKey))
    }

    @Test("decoding never traps: every payload length from 0 to 40 either decodes or is truncated")
    func decodingLengths() {
        for length in 0...40 {
            let frame = Frame(command: 0x20, payload: [UInt8](repeating: 0x5A, count: length))
            do {
                let decoded = try AuthenticatedFrame(decoding: frame)
                #expect(length >= 20 && decoded.body.count == length - 20 && decoded.counter == 0x5A5A_5A5A)
            } catch {
                #expect(length < 20 && error == .truncated(length: length))
            }
        }
    }

    @Test("an independent Python implementation (hmac, hashlib) derives the same keys and confirmations and reaches the same verdict on 2,000 hostile frames")
    func crossCheckWithPython() throws {
        var random = SeededGenerator(seed: 2026)
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        func hexString(_ value: [UInt8]) -> String { value.map { String(format: "%02x", $0) }.joined() }
        var cases: [[String: Any]] = []
        var expected: [(key: String, confirmation: String, verdicts: [String])] = []
        for _ in 0..<20 {
            let macKey = bytes(16), phoneNonce = bytes(16), terminalNonce = bytes(16), checks = bytes(12)
            var guardian = TerminalCommandGuard(allowedBeforeKey: Self.allowed)
            let checkValues = KeyCheckValues(pin: Array(checks[0..<4]), mac: Array(checks[4..<8]), data: Array(checks[8..<12]))
            let confirmation = guardian.establish(macKey: macKey, phoneNonce: phoneNonce, terminalNonce: terminalNonce, checkValues: checkValues)
            let key = try #require(guardian.key)
            var frames: [[String: Any]] = []
            var verdicts: [String] = []
            var counter: UInt32 = 0
            for _ in 0..<100 {
                // Mostly the next counters, sometimes a repeat or an older one; some bodies flipped,
                // some payloads too short, some sealed under another key.
                let step = Int.random(in: -2...3, using: &random)
                counter = UInt32(clamping: max(0, Int(counter) + step))
                let command = UInt8.random(in: 0...0x7F, using: &random)
                var frame = AuthenticatedFrame(command: command, counter: counter, body: bytes(Int.random(in: 0...40, using: &random)), key: key).frame
                switch Int.random(in: 0..<10, using: &random) {
                case 0: frame.payload[Int.random(in: 0..<frame.payload.count, using: &random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
                case 1: frame.payload = bytes(Int.random(in: 0..<20, using: &random))
                case 2: frame = AuthenticatedFrame(command: command, counter: counter, body: [1, 2], key: SessionKey(bytes: bytes(32))).frame
                default: break
                }
                frames.append(["command": Int(frame.command), "payload": hexString(frame.payload)])
                switch guardian.check(frame) {
                case .accepted(_, let accepted, let body): verdicts.append("accepted:\(accepted ?? 0):\(hexString(body))")
                case .refused(_, let refused, let error): verdicts.append("refused:\(refused):\(error.status)")
                }
            }
            cases.append(["allowed": Self.allowed.map(Int.init), "macKey": hexString(macKey), "phoneNonce": hexString(phoneNonce),
                          "terminalNonce": hexString(terminalNonce), "checkValues": hexString(checks), "frames": frames])
            expected.append((hexString(key.bytes), hexString(confirmation), verdicts))
        }
        let work = try TemporaryDirectory(prefix: "auth-cross-check")
        defer { work.remove() }
        try JSONSerialization.data(withJSONObject: cases).write(to: work.file("cases.json"))
        let script = BuildProducts.packageRoot.appendingPathComponent("Tests/BumblePeer/vigil_auth.py").path
        let outcome = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, work.file("cases.json").path], timeout: 60)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [[String: Any]])
        #expect(results.count == expected.count)
        var accepted = 0, refused = 0
        for (result, mine) in zip(results, expected) {
            #expect(result["key"] as? String == mine.key)
            #expect(result["confirmation"] as? String == mine.confirmation)
            let theirs = result["verdicts"] as? [String] ?? []
            #expect(theirs == mine.verdicts)
            accepted += mine.verdicts.filter { $0.hasPrefix("accepted") }.count
            refused += mine.verdicts.filter { $0.hasPrefix("refused") }.count
        }
        // Both outcomes are well represented, so the agreement means something.
        #expect(accepted > 300 && refused > 300, "\(accepted) accepted, \(refused) refused")
    }
}
