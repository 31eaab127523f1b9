import Foundation
import Testing
@testable import VigilSymbols
import VigilTestSupport

@Suite("SymCache: format, mmap, lookups")
struct SymCacheTests {
    private func build(_ fixture: String, arch: String? = nil) throws -> (ObjectSlice, SymCacheWriter.Output) {
        let slice = try ObjectFile(path: SymbolFixtures.path(fixture)).slice(arch: arch)
        return (slice, try SymCacheWriter().write(slice))
    }

    @Test("a cache opened from a memory-mapped file answers like the one opened from bytes")
    func mappedEqualsData() throws {
        let (slice, output) = try build("macho/app-arm64-O2.dSYM")
        let directory = try TemporaryDirectory(prefix: "symcache")
        let file = directory.file("app.symcache")
        try output.data.write(to: file)
        let mapped = try SymCache(contentsOf: file.path)
        let inMemory = try SymCache(data: output.data)
        #expect(SymCache.isSymCache(atPath: file.path))
        #expect(!SymCache.isSymCache(atPath: SymbolFixtures.path("elf/c-dwarf5-O2")))
        #expect(mapped.byteCount == output.data.count)
        for address in SymbolFixtures.addresses(of: slice).addresses {
            #expect(mapped.lookup(vmAddress: address) == inMemory.lookup(vmAddress: address))
        }
    }

    @Test("the header keeps the image's arch, UUID and vmaddr, and the counts")
    func metadata() throws {
        let (slice, output) = try build("macho/app-fat.dSYM", arch: "x86_64")
        let cache = try SymCache(data: output.data)
        #expect(cache.arch == "x86_64")
        #expect(cache.id == slice.id)
        #expect(cache.imageVMAddress == slice.imageVMAddress)
        #expect(cache.hasLineInformation)
        #expect(cache.rangeCount == output.rangeCount)
        #expect(cache.functionCount == output.functionCount)
        #expect(cache.fileCount == output.fileCount)
        #expect(output.data.count < Int(slice.fileSize))
    }

    @Test("building twice gives the same bytes")
    func deterministic() throws {
        #expect(try build("elf/swift-O").1.data == build("elf/swift-O").1.data)
    }

    @Test("relative, runtime and file addresses name the same frames; return addresses step back into the call")
    func addressForms() throws {
        let (_, output) = try build("macho/app-arm64-O2.dSYM")
        let cache = try SymCache(data: output.data)
        let relative: UInt64 = 0x4100
        let frames = cache.lookup(relativeAddress: relative)
        #expect(!frames.isEmpty)
        #expect(cache.lookup(vmAddress: 0x1_0000_0000 + relative) == frames)
        #expect(cache.lookup(address: 0x1_0234_0000 + relative, loadAddress: 0x1_0234_0000) == frames)
        #expect(cache.lookup(relativeAddress: relative + 4, isReturnAddress: true) == frames) // arm64: −4
        #expect(cache.lookup(address: 0x10, loadAddress: 0x20).isEmpty)

        let (_, x86) = try build("elf/c-dwarf5-O2")
        let elf = try SymCache(data: x86.data)
        let some = try #require((0x1000..<0x1400).first { !elf.lookup(relativeAddress: UInt64($0)).isEmpty }).magnitude
        #expect(elf.lookup(relativeAddress: UInt64(some) + 1, isReturnAddress: true) == elf.lookup(relativeAddress: UInt64(some)))
    }

    @Test("frames carry demangled and simplified names, the file's name and inlining")
    func frameContents() throws {
        let (_, output) = try build("macho/app-arm64-O2.dSYM")
        let cache = try SymCache(data: output.data)
        var sawInline = false, sawCxx = false
        for relative in stride(from: UInt64(0x4000), to: 0x4400, by: 4) {
            let frames = cache.lookup(relativeAddress: relative)
            guard let outermost = frames.last else { continue }
            #expect(!outermost.isInlined)
            let innerInlined = frames.dropLast().allSatisfy { $0.isInlined }
            #expect(innerInlined)
            if frames.count > 1 { sawInline = true }
            for frame in frames {
                if let file = frame.file { #expect(frame.fileName == (file as NSString).lastPathComponent) }
                if frame.rawFunction == "_ZN7fixture8geometry4walkEi" {
                    sawCxx = true
                    #expect(frame.function == "fixture::geometry::walk(int)")
                    #expect(frame.simplifiedFunction == "fixture::geometry::walk")
                    #expect(frame.functionAddress != nil)
                }
            }
        }
        #expect(sawInline)
        #expect(sawCxx)
    }

    @Test("without DWARF the symbol table gives function names, entries and no lines")
    func symbolTableOnly() throws {
        let directory = try TemporaryDirectory(prefix: "symtab")
        let copy = directory.file("app")
        try FileManager.default.copyItem(atPath: SymbolFixtures.path("macho/app-arm64-O2"), toPath: copy.path)
        let slice = try ObjectFile(path: copy.path).slice(arch: nil)
        #expect(!slice.hasDWARF)
        let output = try SymCacheWriter().write(slice)
        #expect(!output.usedDWARF)
        let cache = try SymCache(data: output.data)
        #expect(!cache.hasLineInformation)
        let frames = (0x4000..<0x4400).map { cache.lookup(relativeAddress: UInt64($0)) }.filter { !$0.isEmpty }
        #expect(!frames.isEmpty)
        #expect(frames.allSatisfy { $0.count == 1 && $0[0].file == nil && $0[0].line == 0 && $0[0].functionAddress != nil })
        #expect(frames.contains { $0[0].rawFunction == "main" })
    }

    @Test("batch frame references equal one lookup at a time")
    func batchLookups() throws {
        let (slice, output) = try build("elf/swift-O")
        let cache = try SymCache(data: output.data)
        let addresses = SymbolFixtures.addresses(of: slice).addresses.map { $0 - slice.imageVMAddress }
        var frames: [FrameReference] = [], counts: [Int] = []
        addresses.withUnsafeBufferPointer { cache.frameReferences(relativeAddresses: $0, into: &frames, counts: &counts) }
        #expect(counts.count == addresses.count)
        var start = 0
        for (address, count) in zip(addresses, counts) {
            var single: [FrameReference] = []
            cache.frameReferences(relativeAddress: address, into: &single)
            #expect(Array(frames[start..<(start + count)]) == single)
            start += count
        }
    }

    @Test("lookups from many threads at once agree")
    func concurrentLookups() throws {
        let (slice, output) = try build("elf/swift-O")
        let cache = try SymCache(data: output.data)
        let addresses = SymbolFixtures.addresses(of: slice).addresses
        let expected = addresses.map { cache.lookup(vmAddress: $0) }
        let mismatches = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in stride(from: worker, to: addresses.count, by: 8) where cache.lookup(vmAddress: addresses[index]) != expected[index] {
                mismatches.increment()
            }
        }
        #expect(mismatches.value == 0)
    }
}

/// A thread-safe counter for concurrency tests.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
