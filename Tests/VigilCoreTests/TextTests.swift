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
}
