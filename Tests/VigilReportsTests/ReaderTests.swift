import Foundation
import Testing
@testable import VigilReports

/// Field by field: the `.ips` reader against Apple's documented keys, and the text reader
/// against the same report translated.
@Suite("Readers")
struct ReaderTests {
    @Test(".ips: metadata, process, OS, exception, termination, threads, registers and images as Apple documents them")
    func ipsFields() throws {
        let report = try Fixture.report("watchdog-icu-scene-create.ips")
        #expect(report.format == .ips)
        #expect(report.bugType == "309")
        #expect(report.incidentID == "4F6D1C2A-7B3E-4E21-9A5D-3C8B2F1E0D47")
        #expect(report.process == ProcessDetails(name: "Shopfront", pid: 412,
                                                 path: "/private/var/containers/Bundle/Application/9A1B2C3D-4E5F-4A6B-8C7D-0E1F2A3B4C5D/Shopfront.app/Shopfront",
                                                 parentName: "launchd", parentPID: 1, role: "Foreground"))
        #expect(report.app == AppDetails(bundleID: "com.example.shopfront", version: "4.2.0", build: "812"))
        #expect(report.system.osName == "iPhone OS")
        #expect(report.system.osVersion == "17.6.1")
        #expect(report.system.osBuild == "21G93")
        #expect(report.system.deviceModel == "iPhone15,2")
        #expect(report.system.cpuType == "ARM-64")
        #expect(report.system.architecture == "arm64")
        #expect(report.captureTime == "2026-10-02 09:14:07.3120 +0200")
        #expect(report.launchTime == "2026-10-02 09:14:03.8410 +0200")
        #expect(report.exception == ExceptionDetails(type: "EXC_CRASH", signal: "SIGKILL", codes: [0, 0],
                                                     codesText: "0x0000000000000000, 0x0000000000000000"))
        #expect(report.termination?.namespace == "FRONTBOARD")
        #expect(report.termination?.code == 0x8BAD_F00D)
        #expect(report.termination?.codeHex == "0x8badf00d")
        #expect(report.termination?.details.count == 9)
        #expect(report.threads.count == 5)
        #expect(report.triggeredThreadIndex == 0)
        let main = report.threads[0]
        #expect(main.queue == "com.apple.main-thread")
        #expect(main.id == 48211)
        #expect(main.frames.count == 24)
        #expect(main.frames[6].symbol == "icu::Locale::getDefault()")
        #expect(main.frames[6].symbolOffset == 40)
        #expect(report.image(of: main.frames[6])?.name == "libicucore.A.dylib")
        #expect(main.frames[13].symbol == nil)
        #expect(report.address(of: main.frames[13]) == 0x1_04d8_0000 + 188_724)
        #expect(main.register("x0") == 260)
        #expect(main.register("pc") == 0x1_e9a1_0000 + 5916)
        #expect(main.registers.first(where: { $0.name == "esr" })?.note == "(Syscall)")
        #expect(main.registerFlavor == "ARM_THREAD_STATE64")
        #expect(report.threads[2].name == "com.apple.uikit.eventfetch-thread")
        #expect(report.images.count == 12)
        #expect(report.images[0].uuid == "2F1C7D3E-5A4B-3C2D-9E8F-1A2B3C4D5E6F")
        #expect(report.images[0].origin == .app)
        #expect(report.images[1].origin == .system)
        #expect(report.images[11].uuid == nil)
        #expect(!report.isPartial)
    }

    @Test("the same report as Xcode's text translation reads to the same model")
    func textMatchesIPS() throws {
        let ips = try Fixture.report("watchdog-icu-scene-create.ips")
        let text = try Fixture.report("watchdog-icu-scene-create.crash")
        #expect(text.process == ips.process)
        #expect(text.app == ips.app)
        #expect(text.system.osDescription == ips.system.osDescription)
        #expect(text.exception?.type == ips.exception?.type)
        #expect(text.exception?.signal == ips.exception?.signal)
        #expect(text.termination?.namespace == ips.termination?.namespace)
        #expect(text.termination?.code == ips.termination?.code)
        #expect(text.termination?.details == ips.termination?.details)
        #expect(text.threads.map(\.name) == ips.threads.map(\.name))
        #expect(text.threads.map(\.queue) == ips.threads.map(\.queue))
        for (a, b) in zip(text.threads, ips.threads) {
            #expect(a.frames.map { text.address(of: $0) } == b.frames.map { ips.address(of: $0) })
            #expect(a.frames.map(\.symbol) == b.frames.map(\.symbol))
            #expect(a.frames.map(\.symbolOffset) == b.frames.map(\.symbolOffset))
        }
        #expect(text.images.filter { $0.uuid != nil }.map(\.uuid) == ips.images.filter { $0.uuid != nil }.map(\.uuid))
        let pc = try #require(text.threads[0].register("pc"))
        #expect(pc == ips.threads[0].register("pc"))
        #expect(text.threads[0].register("x28") == ips.threads[0].register("x28"))
    }

    @Test("frame line layouts: unsymbolicated, symbolicated with source, atos style, inlined, ??? images")
    func frameLines() throws {
        let atos = try #require(TextFrameLine.parse("8   MyCoolApp                         0x00000001009d31e0 ViewController.loadData() (in MyCoolApp) (ViewController.swift:21)"))
        #expect(atos.symbol == "ViewController.loadData()")
        #expect(atos.file == "ViewController.swift")
        #expect(atos.line == 21)
        #expect(atos.offset == nil)
        let xcode = try #require(TextFrameLine.parse("0   TouchCanvas                       0x0000000102afb3d0 CanvasView.updateEstimatedPropertiesForTouches(_:) + 62416 (CanvasView.swift:231)"))
        #expect(xcode.symbol == "CanvasView.updateEstimatedPropertiesForTouches(_:)")
        #expect(xcode.offset == 62416)
        let inlined = try #require(TextFrameLine.parse("2   SDL                           \t       0x104a3f2c4 SDL_QuitMainThread + 4 (SDL.c:315) [inlined]"))
        #expect(inlined.inlined)
        #expect(inlined.line == 315)
        let unknown = try #require(TextFrameLine.parse("0   ???                               0x0000000000000040 0 + 64"))
        #expect(unknown.loadAddress == 0)
        #expect(unknown.offset == 64)
        let spaced = try #require(TextFrameLine.parse("15  App Namespace                       0x000000010212d008 0x10211c000 + 69640"))
        #expect(spaced.imageName == "App Namespace")
        #expect(spaced.loadAddress == 0x1_0211_c000)
        #expect(TextFrameLine.parse("Thread 0 Crashed:") == nil)
        #expect(TextFrameLine.parse("0x102914000 - 0x102e03fff SoloQuest arm64") == nil)
    }

    @Test("binary image line layouts: iOS, macOS with versions and bundle ids, spaces, unknown images")
    func imageLines() throws {
        let ios = try #require(TextImageLine.parse("       0x102914000 -        0x102e03fff SoloQuest arm64  <11ce3f5762643e8d8a8986894d83b974> /var/containers/Bundle/Application/X/SoloQuest.app/SoloQuest"))
        #expect(ios.name == "SoloQuest")
        #expect(ios.arch == "arm64")
        #expect(ios.end == 0x1_02e0_3fff)
        let mac = try #require(TextImageLine.parse("       0x1025e5000 -        0x1025e6ffb +com.example.apple-samplecode.TouchCanvas (1.0 - 1) <5ED9BD63-2A55-3DDD-B3FF-EFCF61382F6F> /Users/USER/*/TouchCanvas.app/Contents/MacOS/TouchCanvas"))
        #expect(mac.name == "TouchCanvas")
        #expect(mac.bundleID == "com.example.apple-samplecode.TouchCanvas")
        #expect(mac.version == "1.0 - 1")
        #expect(mac.markedNonSystem)
        let unknown = try #require(TextImageLine.parse("               0x0 - 0xffffffffffffffff ??? (*) <00000000-0000-0000-0000-000000000000> ???"))
        #expect(unknown.name == "???")
        #expect(ImageUUID.canonical(unknown.uuid ?? "") == nil)
    }

    @Test("the uncaught exception and Swift message are found in Application Specific Information")
    func exceptionMessages() {
        let objc = LanguageExceptionText.find(in: ["*** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: '-[NSNull length]: unrecognized selector sent to instance 0x1f2'"])
        #expect(objc == LanguageException(kind: .objectiveC, name: "NSInvalidArgumentException", reason: "-[NSNull length]: unrecognized selector sent to instance 0x1f2"))
        let cxx = LanguageExceptionText.find(in: ["libc++abi.dylib: terminating with uncaught exception of type std::__1::system_error<int>: mutex lock failed: Invalid argument"])
        #expect(cxx?.kind == .cplusplus)
        #expect(cxx?.name == "std::__1::system_error<int>")
        #expect(cxx?.reason == "mutex lock failed: Invalid argument")
        let swift = LanguageExceptionText.find(in: ["Swift/ContiguousArrayBuffer.swift:600: Fatal error: Index out of range"])
        #expect(swift == LanguageException(kind: .swift, name: "Fatal error", reason: "Index out of range"))
    }

    @Test("Apple timestamps parse with and without fractions and zones")
    func dates() {
        #expect(AppleDate.parse("2026-03-17 22:50:41.6409 -0700")?.timeIntervalSince1970 == 1_773_813_041.6409)
        #expect(AppleDate.parse("2022-09-28 10:59:30")?.timeIntervalSince1970 == 1_664_362_770)
        #expect(AppleDate.parse("2020-10-10 19:35:24 +0000")?.timeIntervalSince1970 == 1_602_358_524)
        #expect(AppleDate.parse("yesterday") == nil)
        #expect(AppleDate.parse("2026-13-01 00:00:00") == nil)
    }
}
