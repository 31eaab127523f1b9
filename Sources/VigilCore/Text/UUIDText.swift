import Foundation

extension UUID {
    /// The same 36 characters as `uuidString` (uppercase hex digits, hyphens after the 4th, 6th,
    /// 8th and 10th byte), written digit by digit: on Linux `uuidString` goes through
    /// `snprintf`, and the server's ingest path names every event and session with it.
    public var canonicalString: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                let digits: (UInt8) -> UInt8 = { $0 < 10 ? 0x30 + $0 : 0x37 + $0 }  // 0-9, A-F
                var at = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[at] = 0x2D
                        at += 1
                    }
                    text[at] = digits(byte >> 4)
                    text[at + 1] = digits(byte & 0x0F)
                    at += 2
                }
                return at
            }
        }
    }
}
