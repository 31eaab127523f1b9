#if os(Linux)
import CVigilRuntime
import Foundation
import Testing
import VigilCore
import VigilRuntime

@Suite("ELF image list")
struct ELFImageListTests {
    @Test("lists the test executable itself with its GNU build id, load address and size")
    func containsTestBinary() throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let images = ELFImageList().images()
        let own = try #require(images.first { $0.path == executable })
        #expect(own.id.count == 40, "a SHA-1 GNU build id is 20 bytes, 40 hex digits")
        #expect(own.id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(own.loadAddress.value != 0)
        #expect(own.size > 0)
        #expect(own.arch == "x86_64" || own.arch == "arm64")
        #expect(own.name == URL(fileURLWithPath: executable).lastPathComponent)
        // Shared libraries and the vDSO are listed too.
        #expect(images.contains { $0.name.hasPrefix("libc.so") })
        #expect(images.contains { $0.name.hasPrefix("linux-vdso") || $0.name.hasPrefix("linux-gate") })
    }

    @Test("maps an address of this test's code to the test executable and only that image")
    func mapsAddressToImage() throws {
        var bounds = vigil_stack_bounds()
        _ = vigil_thread_stack_bounds(pthread_self(), &bounds)
        var frames = [UInt](repeating: 0, count: 4)
        var reason: UInt32 = 0
        let count = vigil_walk_current_thread(bounds, &frames, 4, &reason)
        try #require(count >= 1)
        let list = ELFImageList()
        let used = list.images(containing: [Address(UInt64(frames[0])), Address(0x10)])
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(used.map(\.path) == [executable])
    }

    @Test("a snapshot with too little room counts the images it dropped")
    func countsDropped() {
        let list = ELFImageList(capacity: 1)
        #expect(list.images().count == 1)
        #expect(list.dropped > 0)
    }

    @Test("the C snapshot reports no loader change right after it was taken")
    func changeDetection() {
        let storage = UnsafeMutablePointer<vigil_image>.allocate(capacity: 256)
        defer { storage.deallocate() }
        var list = vigil_image_list(images: storage, capacity: 256, count: 0, dropped: 0, skipped: 0,
                                    loader_adds: 0, loader_subs: 0)
        #expect(vigil_images_snapshot(&list) == 0)
        #expect(list.count > 0)
        #expect(vigil_images_changed(&list) == 0)
        #expect(vigil_image_list_find(&list, UInt(list.images[0].load_address)) != nil)
        #expect(vigil_image_list_find(&list, 1) == nil)
    }
}
#endif
