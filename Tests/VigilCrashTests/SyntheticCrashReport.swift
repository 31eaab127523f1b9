import CVigilRuntime
import Foundation
import VigilRuntime

/// Raw crash reports made with the handler's own writer (`vigil_crash_report_writer.h`), in the
/// handler's record layout, without crashing anything: inputs for the parser and recovery tests.
struct SyntheticCrashReport {
    var signal: Int32 = SIGSEGV
    var code: Int32 = 1
    var faultAddress: UInt64 = 0x10
    var seconds: UInt64 = 1_795_000_000
    var monotonic: UInt64 = 123_456_789
    var metadata = Data(#"{"note":"synthetic"}"#.utf8)
    var message: String? = "Fatal error: synthetic"
    var crashedFrames: [UInt64] = [0x5555_0000_1234, 0x5555_0000_2000, 0x7f00_0000_3000]
    var otherThreads: [(id: Int32, name: String, frames: [UInt64])] = [(101, "worker", [0x7f00_0000_4000, 0x5555_0000_2100])]
    var images: [(load: UInt64, size: UInt64, id: [UInt8], path: String)] = [
        (0x5555_0000_0000, 0x10000, [0xab, 0xcd, 0xef, 0x01], "/opt/app/Shop"),
        (0x7f00_0000_0000, 0x100000, [], "/usr/lib/libc.so.6"),
    ]
    var lateImages: [(load: UInt64, size: UInt64, path: String)] = [(0x7e00_0000_0000, 0x2000, "/opt/app/Plugin.so")]
    var handlerFault: UInt32?
    /// An `exception` record (type, reason) and the Apple handler's `exception-stack` record.
    var languageException: (type: String, reason: String)?
    var exceptionStack: [UInt64] = []

    /// The report's bytes, end marker included.
    func bytes() throws -> Data {
        let directory = try TemporaryDirectorySupport.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("report")
        let fd = open(url.path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        let capacity = 128 * 1024
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var writer = vigil_report_writer()
        vigil_report_writer_init(&writer, fd, buffer, UInt32(capacity))
        func record(_ tag: String, _ body: (inout vigil_report_writer) -> Void) {
            vigil_report_begin(&writer, tag)
            body(&writer)
            vigil_report_end(&writer)
        }
        record("VIGILCRASH") { w in
            vigil_report_u64(&w, 1); vigil_report_word(&w, "x86_64"); vigil_report_u64(&w, 8)
        }
        record("process") { w in vigil_report_u64(&w, 4242); vigil_report_u64(&w, 4242) }
        record("time") { w in vigil_report_u64(&w, seconds); vigil_report_u64(&w, 500_000_000); vigil_report_u64(&w, monotonic) }
        record("signal") { w in
            vigil_report_u64(&w, UInt64(signal)); vigil_report_i64(&w, Int64(code)); vigil_report_hex(&w, faultAddress); vigil_report_i64(&w, 0)
        }
        record("meta") { w in metadata.withUnsafeBytes { vigil_report_blob(&w, $0.baseAddress, UInt32($0.count)) } }
        for (name, value) in [("rip", crashedFrames.first ?? 0), ("rsp", UInt64(0x7ffc_0000_1000)), ("rbp", UInt64(0x7ffc_0000_1040))] {
            record("reg") { w in vigil_report_word(&w, name); vigil_report_hex(&w, value) }
        }
        record("map") { w in for value: UInt64 in [42, 0, 0, 0] { vigil_report_u64(&w, value) } }
        func thread(_ id: Int32, crashed: Bool, source: UInt64, frames: [UInt64], name: String) {
            record("thread") { w in
                // As the handler does: keep the innermost frames that fit the buffer, flag the cut.
                let kept = frames.prefix(Int(vigil_report_hex_capacity(&w, 128)))
                let flags = kept.count < frames.count ? 1 | UInt64(VIGIL_WALK_TRUNCATED) : 1
                vigil_report_u64(&w, UInt64(id)); vigil_report_u64(&w, crashed ? 1 : 0); vigil_report_hex(&w, flags)
                vigil_report_u64(&w, source); vigil_report_u64(&w, UInt64(kept.count))
                for frame in kept { vigil_report_hex(&w, frame) }
                name.withCString { vigil_report_blob(&w, $0, UInt32(strlen($0))) }
            }
        }
        thread(4242, crashed: true, source: 0, frames: crashedFrames, name: "main")
        record("images") { w in vigil_report_u64(&w, UInt64(images.count)); vigil_report_u64(&w, 0); vigil_report_u64(&w, 0) }
        for image in images {
            record("image") { w in
                vigil_report_hex(&w, image.load); vigil_report_hex(&w, image.size); vigil_report_hex(&w, image.load); vigil_report_hex(&w, 0)
                image.id.withUnsafeBufferPointer { vigil_report_hex_bytes(&w, $0.baseAddress, UInt32($0.count)) }
                image.path.withCString { vigil_report_blob(&w, $0, UInt32(strlen($0))) }
            }
        }
        for late in lateImages {
            record("late-image") { w in
                vigil_report_hex(&w, late.load); vigil_report_hex(&w, late.size); vigil_report_hex(&w, late.load)
                late.path.withCString { vigil_report_blob(&w, $0, UInt32(strlen($0))) }
            }
        }
        if let message {
            record("message") { w in
                vigil_report_word(&w, "swift")
                message.withCString { vigil_report_blob(&w, $0, UInt32(strlen($0))) }
            }
        }
        if let languageException {
            record("exception") { w in
                languageException.type.withCString { vigil_report_blob(&w, $0, UInt32(strlen($0))) }
                languageException.reason.withCString { vigil_report_blob(&w, $0, UInt32(strlen($0))) }
            }
        }
        if !exceptionStack.isEmpty {
            record("exception-stack") { w in
                vigil_report_u64(&w, UInt64(exceptionStack.count))
                for frame in exceptionStack { vigil_report_hex(&w, frame) }
            }
        }
        for other in otherThreads { thread(other.id, crashed: false, source: 1, frames: other.frames, name: other.name) }
        record("threads") { w in for value: UInt64 in [UInt64(otherThreads.count), UInt64(otherThreads.count), 0, 0, 0, 0, 0] { vigil_report_u64(&w, value) } }
        if let handlerFault {
            record("fault") { w in
                vigil_report_u64(&w, UInt64(handlerFault)); vigil_report_u64(&w, 11); vigil_report_i64(&w, 1)
                vigil_report_hex(&w, 8); vigil_report_hex(&w, 0x5555_0000_9999)
            }
        }
        record("timing") { w in for value in [monotonic, monotonic + 10, monotonic + 20, monotonic + 30, monotonic + 40] { vigil_report_u64(&w, value) } }
        guard vigil_report_finish(&writer) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return try Data(contentsOf: url)
    }

    /// `body` with a correct end marker appended: for inputs whose checksum is right but whose
    /// records are not.
    static func signed(_ body: Data) -> Data {
        let crc = CrashHandler.crc32(body)
        return body + Data(String(format: "end %08x %d\n", crc, body.count).utf8)
    }
}

/// A fresh temporary directory without the test-support class (for use inside value types).
enum TemporaryDirectorySupport {
    static func make() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("vigil-crash-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
