import CVigilRuntime
import Testing

/// A fake downward-growing stack in a 16-byte-aligned buffer, with frame records written at
/// chosen word offsets: record = {previous frame pointer, return address}.
private final class FakeStack {
    let words: UnsafeMutablePointer<UInt>
    let count = 64

    init() {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 64 * MemoryLayout<UInt>.size, alignment: 16)
        words = raw.bindMemory(to: UInt.self, capacity: 64)
        words.initialize(repeating: 0, count: 64)
    }

    deinit { UnsafeMutableRawPointer(words).deallocate() }

    var bounds: vigil_stack_bounds {
        vigil_stack_bounds(low: UInt(bitPattern: words), high: UInt(bitPattern: words + count))
    }

    func address(ofWord index: Int) -> UInt { UInt(bitPattern: words + index) }

    /// Writes a record at word `index` linking to `next` (a word index, or nil for the end).
    func record(at index: Int, next: Int?, returnAddress: UInt) {
        words[index] = next.map { address(ofWord: $0) } ?? 0
        words[index + 1] = returnAddress
    }

    func walk(pc: UInt = 0x1000, fromWord start: Int, capacity: Int = 32, sp: UInt = 0) -> (frames: [UInt], reason: UInt32) {
        var buffer = [UInt](repeating: 0, count: capacity)
        var reason: UInt32 = 0
        let count = vigil_walk_frames(pc, address(ofWord: start), sp, bounds, &buffer, UInt32(capacity), &reason)
        return (Array(buffer.prefix(Int(count))), reason)
    }
}

@Suite("Frame-pointer walk")
struct FramePointerWalkTests {
    @Test("walks a well-formed chain to its end, pc first, return addresses innermost first")
    func wellFormedChain() {
        let stack = FakeStack()
        stack.record(at: 4, next: 10, returnAddress: 0xA)
        stack.record(at: 10, next: 20, returnAddress: 0xB)
        stack.record(at: 20, next: nil, returnAddress: 0xC)
        let (frames, reason) = stack.walk(fromWord: 4)
        #expect(frames == [0x1000, 0xA, 0xB, 0xC])
        #expect(reason == UInt32(VIGIL_WALK_COMPLETE))
    }

    @Test("stops at a frame pointer that points back to itself or lower (a loop)")
    func stopsOnLoop() {
        let stack = FakeStack()
        stack.record(at: 4, next: 10, returnAddress: 0xA)
        stack.record(at: 10, next: 4, returnAddress: 0xB)
        let (frames, reason) = stack.walk(fromWord: 4)
        #expect(frames == [0x1000, 0xA, 0xB])
        #expect(reason & UInt32(VIGIL_WALK_LOOP) != 0)

        let selfLoop = FakeStack()
        selfLoop.record(at: 6, next: 6, returnAddress: 0xA)
        #expect(selfLoop.walk(fromWord: 6).frames == [0x1000, 0xA])
    }

    @Test("never reads outside the stack bounds, nor below the stack pointer")
    func boundsAreChecked() {
        let stack = FakeStack()
        stack.words[4] = UInt.max - 15  // above the buffer, so not a loop, but outside
        stack.words[5] = 0xA
        let (frames, reason) = stack.walk(fromWord: 4)
        #expect(frames == [0x1000, 0xA])
        #expect(reason & UInt32(VIGIL_WALK_OUT_OF_BOUNDS) != 0)

        let last = FakeStack()  // a record whose second word would lie past the top
        let (topFrames, topReason) = last.walk(fromWord: last.count - 1)
        #expect(topFrames == [0x1000])
        #expect(topReason & UInt32(VIGIL_WALK_OUT_OF_BOUNDS) != 0)

        let belowSP = FakeStack()
        belowSP.record(at: 4, next: nil, returnAddress: 0xA)
        let (spFrames, spReason) = belowSP.walk(fromWord: 4, sp: belowSP.address(ofWord: 8))
        #expect(spFrames == [0x1000])
        #expect(spReason & UInt32(VIGIL_WALK_OUT_OF_BOUNDS) != 0)
    }

    @Test("rejects a misaligned frame pointer")
    func misaligned() {
        let stack = FakeStack()
        stack.record(at: 4, next: nil, returnAddress: 0xA)
        var buffer = [UInt](repeating: 0, count: 8)
        var reason: UInt32 = 0
        let count = vigil_walk_frames(0x1000, stack.address(ofWord: 4) + 4, 0, stack.bounds, &buffer, 8, &reason)
        #expect(count == 1)
        #expect(reason & UInt32(VIGIL_WALK_MISALIGNED) != 0)
    }

    @Test("fills at most the buffer's capacity and says the stack was truncated")
    func truncates() {
        let stack = FakeStack()
        for index in stride(from: 2, to: 40, by: 4) {
            stack.record(at: index, next: index + 4 < 40 ? index + 4 : nil, returnAddress: UInt(index))
        }
        let (frames, reason) = stack.walk(fromWord: 2, capacity: 3)
        #expect(frames == [0x1000, 2, 6])
        #expect(reason & UInt32(VIGIL_WALK_TRUNCATED) != 0)
    }

    @Test("a null return address ends the walk")
    func nullReturnAddressEnds() {
        let stack = FakeStack()
        stack.record(at: 4, next: 10, returnAddress: 0xA)
        stack.record(at: 10, next: 20, returnAddress: 0)
        #expect(stack.walk(fromWord: 4).frames == [0x1000, 0xA])
    }

    @Test("walks the calling thread's real stack through this test's frames")
    func walksOwnStack() {
        var bounds = vigil_stack_bounds()
        #expect(vigil_thread_stack_bounds(pthread_self(), &bounds) == 0)
        var buffer = [UInt](repeating: 0, count: 128)
        var reason: UInt32 = 0
        let count = vigil_walk_current_thread(bounds, &buffer, 128, &reason)
        // Built with frame pointers, the walk passes through several Swift frames.
        #expect(count >= 3)
        #expect(reason & UInt32(VIGIL_WALK_UNSUPPORTED) == 0)
    }
}
