import CVigilRuntime
import Testing

/// Pointer-authentication stripping and the link-register rule of the Apple walks: shared C,
/// compiled on every platform, so the arithmetic is pinned here on Linux with values shaped like
/// the signed return addresses arm64e system libraries save on A12 and later chips.
@Suite("Pointer-authentication stripping and the link register")
struct PointerAuthenticationStripTests {
    @Test("signed-looking return addresses lose their signature and keep every address bit (iOS, 36 bits)")
    func mobileMask() {
        let cases: [(signed: UInt64, address: UInt64)] = [
            (0x5C25_0001_9C2B_4F1C, 0x0000_0001_9C2B_4F1C),  // signature in bits 36-62: libsystem in the shared cache
            (0xA11E_0001_0427_9A3C, 0x0000_0001_0427_9A3C),  // an app image near 0x104000000, sign bit set
            (0x001F_FFF0_0000_0001, 0x0000_0000_0000_0001),  // only bits above 36
            (0x0000_000F_BFFF_FFFC, 0x0000_000F_BFFF_FFFC),  // just below MACH_VM_MAX_ADDRESS (0xFC0000000): untouched
            (0x0000_0001_8000_0000, 0x0000_0001_8000_0000),  // an unsigned address passes unchanged
            (0, 0),
        ]
        for (signed, address) in cases {
            #expect(vigil_arm64_strip_pointer_authentication(signed, VIGIL_ARM64_ADDRESS_MASK_MOBILE) == address,
                    "0x\(String(signed, radix: 16))")
        }
    }

    @Test("the macOS mask keeps 47 bits: Apple-silicon Macs map user memory up to 0x7FFFFE000000")
    func macOSMask() {
        #expect(vigil_arm64_strip_pointer_authentication(0x2D7F_7FFF_FE00_0000, VIGIL_ARM64_ADDRESS_MASK_MACOS) == 0x7FFF_FE00_0000)
        #expect(vigil_arm64_strip_pointer_authentication(0x8000_0001_9C2B_4F1C, VIGIL_ARM64_ADDRESS_MASK_MACOS) == 0x1_9C2B_4F1C)
        // The mobile mask would damage such a Mac address; the masks are not interchangeable.
        #expect(vigil_arm64_strip_pointer_authentication(0x7FFF_FE00_0000, VIGIL_ARM64_ADDRESS_MASK_MOBILE) != 0x7FFF_FE00_0000)
    }

    @Test("addresses read on this platform pass unchanged where nothing is signed (Linux)")
    func linuxUnchanged() {
        #expect(vigil_strip_return_address(0x5C25_0001_9C2B_4F1C) == 0x5C25_0001_9C2B_4F1C)
    }

    @Test("a leaf function's caller, known only from lr, goes second after the pc")
    func leafInsertsLinkRegister() {
        var frames: [UInt] = [0x1000, 0xB, 0xC, 0, 0, 0, 0, 0]
        var inserted: Int32 = 0
        let count = vigil_walk_insert_link_register(&frames, 3, 8, 0xA, &inserted)
        #expect(count == 4 && inserted == 1)
        #expect(Array(frames.prefix(4)) == [0x1000, 0xA, 0xB, 0xC])
    }

    @Test("lr already saved in the first frame record, or 0, adds nothing")
    func nonLeafKeepsWalk() {
        var frames: [UInt] = [0x1000, 0xA, 0xB, 0]
        var inserted: Int32 = 1
        #expect(vigil_walk_insert_link_register(&frames, 3, 4, 0xA, &inserted) == 3 && inserted == 0)
        #expect(vigil_walk_insert_link_register(&frames, 3, 4, 0, &inserted) == 3 && inserted == 0)
        #expect(Array(frames.prefix(3)) == [0x1000, 0xA, 0xB])
    }

    @Test("a full buffer drops its outermost entry to make room for lr; a pc-only walk gains lr")
    func fullBufferAndPcOnly() {
        var full: [UInt] = [0x1000, 0xB, 0xC]
        var inserted: Int32 = 0
        #expect(vigil_walk_insert_link_register(&full, 3, 3, 0xA, &inserted) == 3 && inserted == 1)
        #expect(full == [0x1000, 0xA, 0xB])

        var pcOnly: [UInt] = [0x1000, 0]
        #expect(vigil_walk_insert_link_register(&pcOnly, 1, 2, 0xA, nil) == 2)
        #expect(pcOnly == [0x1000, 0xA])

        var tiny: [UInt] = [0x1000]
        #expect(vigil_walk_insert_link_register(&tiny, 1, 1, 0xA, &inserted) == 1 && inserted == 0, "no room for a second entry")
    }
}
