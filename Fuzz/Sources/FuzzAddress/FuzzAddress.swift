import CFuzzDriver
import Foundation
import FuzzSupport
import VigilCore

/// Reads the input as a hex address and as a JSON array of addresses: never a trap; `Address(hex:)`
/// accepts exactly an optional `0x`/`0X` and 1 to 16 hex digits, with the value those digits
/// spell; an accepted address writes back as canonical `0x…` text that parses to itself; a
/// decoded JSON array encodes and decodes to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAddress(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    let parsed = Address(hex: text)
    let expected = referenceValue(text)
    fuzzCheck(parsed?.value == expected, "Address(hex: \(text.debugDescription)) = \(String(describing: parsed)), expected \(String(describing: expected))")
    if let parsed {
        let canonical = "0x" + String(parsed.value, radix: 16)
        fuzzCheck(parsed.hex == canonical, "\(parsed.value) writes as \(parsed.hex)")
        fuzzCheck(Address(hex: parsed.hex) == parsed && Address(hex: parsed.hex.uppercased()) == parsed,
                  "\(parsed.hex) does not parse back")
    }

    if let list = try? JSONDecoder().decode([Address].self, from: Data(bytes)) {
        guard let encoded = try? JSONEncoder().encode(list),
              let again = try? JSONDecoder().decode([Address].self, from: encoded) else {
            fatalError("\(list) does not encode and decode")
        }
        fuzzCheck(again == list, "\(list) came back as \(again)")
    }
    return 0
}

/// The specification, written out: optional `0x`/`0X`, then 1...16 ASCII hex digits.
private func referenceValue(_ text: String) -> UInt64? {
    var digits = Array(text.utf8)
    if digits.count >= 2, digits[0] == UInt8(ascii: "0"), digits[1] == UInt8(ascii: "x") || digits[1] == UInt8(ascii: "X") {
        digits.removeFirst(2)
    }
    guard (1...16).contains(digits.count) else { return nil }
    var value: UInt64 = 0
    for digit in digits {
        let nibble: UInt8
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
        default: return nil
        }
        value = value << 4 | UInt64(nibble)
    }
    return value
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzAddress_main")
public func fuzzAddressMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzAddress(data, size)
    }
}
