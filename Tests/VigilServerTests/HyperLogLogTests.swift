import Foundation
import Testing
@testable import VigilServer

@Suite("HyperLogLog: distinct counts within 2 %, mergeable in any order")
struct HyperLogLogTests {
    /// A seeded generator (SplitMix64), so every run checks the same keys.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }

    private func keys(_ count: Int, seed: UInt64) -> [String] {
        var random = SeededGenerator(state: seed)
        return (0..<count).map { _ in UUID(uuid: (UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                                  UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                                  UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                                  UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                                  UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                                  UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                                  UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                                  UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random)))
            .uuidString }
    }

    @Test("an empty sketch estimates 0, and a few keys are counted exactly")
    func small() {
        var sketch = HyperLogLog()
        #expect(sketch.count == 0)
        for key in ["a", "b", "c", "a", "b"] { sketch.insert(key) }
        #expect(sketch.count == 3)
    }

    @Test("the estimate is within 2 % of the true count from 100 to 1,000,000 keys, with repeats",
          arguments: [100, 1_000, 5_000, 10_000, 40_000, 80_000, 250_000, 1_000_000])
    func accuracy(count: Int) {
        var sketch = HyperLogLog()
        let keys = keys(count, seed: UInt64(count))
        for key in keys { sketch.insert(key) }
        for key in keys.prefix(count / 3) { sketch.insert(key) }
        let error = abs(sketch.estimate - Double(count)) / Double(count)
        #expect(error <= 0.02, "estimate \(sketch.estimate) for \(count): \(error * 100) %")
    }

    @Test("merging sketches in any order, and merging one twice, gives the sketch of the union")
    func merge() {
        let keys = keys(30_000, seed: 7)
        var whole = HyperLogLog()
        for key in keys { whole.insert(key) }
        var parts = [HyperLogLog(), HyperLogLog(), HyperLogLog()]
        for (index, key) in keys.enumerated() { parts[index % 3].insert(key) }
        var forward = HyperLogLog(), backward = HyperLogLog()
        for part in parts { forward.merge(part) }
        for part in parts.reversed() { backward.merge(part); backward.merge(part) }
        #expect(forward == whole && backward == whole)
        #expect(forward.estimate == whole.estimate)
    }

    @Test("the hash is stable across processes (fixed values), and registers from outside are checked")
    func stableHash() {
        // Values computed independently (FNV-1a 64, then MurmurHash3's fmix64).
        #expect(HyperLogLog.hash64("") == 0xefd0_1f60_ba99_2926)
        #expect(HyperLogLog.hash64("i:6A1F0C2E-5B7D-4E8A-9C3B-1D2E3F405162") == 0x2a2f_d92d_b405_15d7)
        let observation = HyperLogLog.observation(of: "i:6A1F0C2E-5B7D-4E8A-9C3B-1D2E3F405162")
        #expect(observation.register == 0x2a2f_d92d_b405_15d7 >> 50)
        #expect(Int(observation.rank) == ((0x2a2f_d92d_b405_15d7 as UInt64) << 14).leadingZeroBitCount + 1)
        var sketch = HyperLogLog()
        sketch.set(register: -1, rank: 3)
        sketch.set(register: HyperLogLog.registerCount, rank: 3)
        sketch.set(register: 5, rank: 200)
        sketch.set(register: 5, rank: 0)
        #expect(sketch.registers.isEmpty)
    }
}
