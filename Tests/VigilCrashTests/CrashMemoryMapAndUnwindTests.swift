import CVigilRuntime
import Foundation
import Testing
import VigilTestSupport

/// A memory map over caller storage, fed from text, for the parser tests.
final class MemoryMapFixture {
    let storage: UnsafeMutablePointer<vigil_mapping>
    var map: vigil_memory_map

    init(capacity: Int = 64) {
        storage = .allocate(capacity: capacity)
        map = vigil_memory_map()
        map.mappings = storage
        map.capacity = UInt32(capacity)
    }

    deinit { storage.deallocate() }

    func feed(_ text: String, chunk: Int) {
        vigil_memory_map_reset(&map)
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            bytes[start..<end].withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { vigil_memory_map_feed(&map, $0.baseAddress, $0.count) }
            }
            start = end
        }
        vigil_memory_map_finish(&map)
    }

    var mappings: [vigil_mapping] { (0..<Int(map.count)).map { storage[$0] } }
}

@Suite("Crash-time memory map and stack walk")
struct CrashMemoryMapAndUnwindTests {
    static let maps = """
        55d0c0000000-55d0c0001000 r--p 00000000 fd:00 1234                       /opt/app/Shop
        55d0c0001000-55d0c0005000 r-xp 00001000 fd:00 1234                       /opt/app/Shop with a very long path name that goes on and on and on and on and on and on beyond a hundred and twenty eight bytes of line
        55d0c0005000-55d0c0006000 rw-p 00005000 fd:00 1234                       /opt/app/Shop
        7ffc00000000-7ffc00010000 rw-p 00000000 00:00 0                          [stack]
        7ffc00010000-7ffc00020000 rw-p 00000000 00:00 0
        ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
        """

    @Test("maps text split into chunks of every size parses to the same table", arguments: [1, 2, 3, 7, 64, 127, 128, 129, 4096])
    func chunking(chunk: Int) {
        let fixture = MemoryMapFixture()
        fixture.feed(Self.maps, chunk: chunk)
        let mappings = fixture.mappings
        #expect(mappings.count == 6)
        #expect(fixture.map.malformed == 0)
        #expect(mappings[1].start == 0x55d0_c000_1000 && mappings[1].end == 0x55d0_c000_5000)
        #expect(mappings[1].flags == UInt32(VIGIL_MAPPING_READ | VIGIL_MAPPING_EXECUTE | VIGIL_MAPPING_FILE))
        #expect(mappings[3].flags == UInt32(VIGIL_MAPPING_READ | VIGIL_MAPPING_WRITE))
        #expect(mappings[5].flags == UInt32(VIGIL_MAPPING_EXECUTE))
    }

    @Test("lookups: readability across adjacent mappings, stack bounds merged over adjacent writable mappings")
    func lookups() {
        let fixture = MemoryMapFixture()
        fixture.feed(Self.maps, chunk: 4096)
        #expect(vigil_memory_map_is_readable(&fixture.map, 0x55d0_c000_0ff0, 0x20) == 1, "spans two readable mappings")
        #expect(vigil_memory_map_is_readable(&fixture.map, 0x55d0_c000_5ff0, 0x20) == 0, "runs into a gap")
        #expect(vigil_memory_map_is_readable(&fixture.map, 0xffff_ffff_ff60_0000, 8) == 0, "execute-only")
        #expect(vigil_memory_map_is_readable(&fixture.map, 0x1000, 8) == 0)
        var bounds = vigil_stack_bounds()
        #expect(vigil_memory_map_stack_bounds(&fixture.map, 0x7ffc_0000_8000, &bounds) == 1)
        #expect(bounds.low == 0x7ffc_0000_0000 && bounds.high == 0x7ffc_0002_0000)
        #expect(vigil_memory_map_stack_bounds(&fixture.map, 0x55d0_c000_2000, &bounds) == 0, "code is not a stack")
    }

    @Test("malformed and out-of-order lines are counted and refused, a full table counts what it dropped")
    func badLines() {
        let fixture = MemoryMapFixture(capacity: 2)
        fixture.feed("""
            zz-10 r--p 0 0:0 0
            2000-1000 r--p 0 0:0 0
            1000-2000 r--p 00000000 00:00 0
            0800-0900 r--p 00000000 00:00 0
            3000-4000 r--p 00000000 00:00 0
            5000-6000 r--p 00000000 00:00 0
            12345678901234567-2 r--p 0 0:0 0

            """, chunk: 5)
        #expect(fixture.map.count == 2)
        #expect(fixture.map.malformed == 4)
        #expect(fixture.map.dropped == 1)
    }

    @Test("the live process's own map holds this thread's stack as readable and writable")
    func liveMap() {
        let fixture = MemoryMapFixture(capacity: 8192)
        let scratch = UnsafeMutablePointer<CChar>.allocate(capacity: 4096)
        defer { scratch.deallocate() }
        #expect(vigil_memory_map_read(&fixture.map, scratch, 4096) == 0)
        var local = 7
        let address = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
        var bounds = vigil_stack_bounds()
        #expect(vigil_memory_map_stack_bounds(&fixture.map, address, &bounds) == 1)
        #expect(bounds.low <= address && address < bounds.high)
    }

    @Test("return addresses of the live stack are recognised; function entry points are not")
    func returnAddresses() throws {
        let fixture = MemoryMapFixture(capacity: 8192)
        let scratch = UnsafeMutablePointer<CChar>.allocate(capacity: 4096)
        defer { scratch.deallocate() }
        #expect(vigil_memory_map_read(&fixture.map, scratch, 4096) == 0)
        let walked = try Self.walkCurrentThread()
        try #require(walked.count >= 3)
        for address in walked.prefix(3) {
            #expect(vigil_crash_is_return_address(&fixture.map, address) == 1, "0x\(String(address, radix: 16))")
        }
        let entry = unsafeBitCast(vigil_crash_stage as @convention(c) () -> UInt32, to: UInt.self)
        #expect(vigil_crash_is_return_address(&fixture.map, entry) == 0)
        #expect(vigil_crash_is_return_address(&fixture.map, 0x10) == 0)
    }

    @Test("from a stack address alone (no frame pointer), the walk finds the first frame record and the chain of callers")
    func recordSearch() throws {
        let fixture = MemoryMapFixture(capacity: 8192)
        let scratch = UnsafeMutablePointer<CChar>.allocate(capacity: 4096)
        defer { scratch.deallocate() }
        #expect(vigil_memory_map_read(&fixture.map, scratch, 4096) == 0)
        let reference = try Self.walkCurrentThread()
        var local = 1
        let stackAddress = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
        var registers = vigil_crash_registers()
        registers.pc = reference[0]
        registers.sp = stackAddress
        registers.has_fp = 0
        let frames = UnsafeMutablePointer<UInt>.allocate(capacity: 128)
        defer { frames.deallocate() }
        var flags: UInt32 = 0
        let count = Int(vigil_crash_unwind(&fixture.map, &registers, vigil_stack_bounds(), frames, 128, &flags))
        let walked = (0..<count).map { frames[$0] }
        #expect(flags & UInt32(VIGIL_UNWIND_RECORD_SEARCHED) != 0)
        // The callers' return addresses appear in the same order as the frame-pointer walk's.
        let tail = Array(reference.dropFirst(2).prefix(4))
        let found = walked.indices.contains { start in Array(walked[start...].prefix(tail.count)) == tail }
        #expect(found, "search walk \(walked.map { String($0, radix: 16) }) vs reference \(reference.map { String($0, radix: 16) })")
    }

    @Test("a walk without a memory map falls back to the frame-pointer walk inside the given bounds and says so")
    func noMap() {
        var registers = vigil_crash_registers()
        registers.pc = 0x1234
        registers.sp = 0
        registers.fp = 0
        registers.has_fp = 1
        let frames = UnsafeMutablePointer<UInt>.allocate(capacity: 4)
        defer { frames.deallocate() }
        var flags: UInt32 = 0
        let count = vigil_crash_unwind(nil, &registers, vigil_stack_bounds(low: 0x1000, high: 0x2000), frames, 4, &flags)
        #expect(count == 1 && frames[0] == 0x1234)
        #expect(flags & UInt32(VIGIL_UNWIND_NO_MAP) != 0)
    }

    /// This thread's return addresses by frame-pointer walk (innermost first).
    static func walkCurrentThread() throws -> [UInt] {
        var bounds = vigil_stack_bounds()
        guard vigil_thread_stack_bounds(pthread_self(), &bounds) == 0 else { throw TestSupportError("no stack bounds") }
        let frames = UnsafeMutablePointer<UInt>.allocate(capacity: 64)
        defer { frames.deallocate() }
        var reason: UInt32 = 0
        let count = Int(vigil_walk_current_thread(bounds, frames, 64, &reason))
        return (0..<count).map { frames[$0] }
    }
}
