import Foundation
import Testing
import VigilCore

@Suite("text helpers")
struct TextTests {
    @Test("canonicalString spells a UUID exactly as uuidString does")
    func canonicalUUID() {
        var generator = SystemRandomNumberGenerator()
        var samples = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                       UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
                       UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!]
        for _ in 0..<500 {
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
            samples.append(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                       bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        }
        for uuid in samples {
            #expect(uuid.canonicalString == uuid.uuidString)
        }
        #expect(samples[2].canonicalString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    }

    @Test("containsBytes finds a substring by its UTF-8 bytes, at the start, the end, or nowhere")
    func containsBytes() {
        let path = "/private/var/containers/Bundle/Application/X/Shop.app/Shop"
        #expect(path.containsBytes("/Bundle/Application/"))
        #expect(path.containsBytes("/private"))
        #expect(path.containsBytes("app/Shop"))
        #expect(path.containsBytes(""))
        #expect(!path.containsBytes("/Frameworks/libswift"))
        #expect(!path.containsBytes("Shop.app/Shop/"))
        #expect(!"".containsBytes("a"))
        #expect("naïve café 🚀".containsBytes("café 🚀"))
        #expect(!"naïve".containsBytes("naive"))
        #expect(path.dropFirst(9).containsBytes("containers"), "a Substring too")
    }

    @Test("FixedDecimal writes what String(format: \"%.Nf\") writes, ties and signs included")
    func fixedDecimal() {
        var values: [Double] = [0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 0.15, 0.25, 2.675, 1.005, 999.95, 9.995, 0.05,
                                -0.04, -0.4, 1e-7, -1e-7, 123_456.789, 4_999.5, 1e14, 4.5e15, 1e20, .nan, .infinity, -.infinity,
                                .leastNonzeroMagnitude, .greatestFiniteMagnitude, 2_000, 5_999.999, 850]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4_000 {
            let magnitude = [1.0, 100, 10_000, 1e7, 1e12].randomElement(using: &generator)!
            values.append(Double.random(in: -magnitude...magnitude, using: &generator))
            // Values near a tie at one to three digits.
            let units = Double(Int.random(in: 0...100_000, using: &generator))
            values.append((units + 0.5) / [1.0, 10, 100, 1000].randomElement(using: &generator)!)
        }
        for value in values {
            for digits in 0...3 {
                #expect(FixedDecimal.format(value, digits: digits) == String(format: "%.\(digits)f", value),
                        "\(value) with \(digits) digits")
            }
        }
    }
}
