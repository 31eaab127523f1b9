#if canImport(Darwin)
import CVigilRuntime
import Darwin
import Foundation
import VigilCore

/// The crash handler on Apple platforms (`vigil_crash_darwin.h`): a Mach exception port served
/// by its own thread (EXC_BAD_ACCESS, EXC_BAD_INSTRUCTION, EXC_ARITHMETIC, EXC_BREAKPOINT,
/// EXC_SOFTWARE; a stack overflow included), a SIGABRT handler, a C++ terminate handler, and the
/// uncaught-NSException hook of ``UncaughtExceptionRecorder``. Mirrors ``CrashHandler`` (Linux):
/// same configuration, same raw report format, read by the same ``RawCrashReportParser``.
///
/// Type-checked against the iOS 17 / macOS 14 SDKs; not run until the Apple CI workflow and a
/// device do (docs/runtime.md lists what only a device can confirm).
public enum MachCrashHandler {
    /// Installs (first call) or re-arms the handler with `configuration`, with `images` (the
    /// dyld image list) as the image snapshot. Call on the main thread at start.
    public static func install(_ configuration: CrashHandler.Configuration, images: [ImageInfo]) throws(CrashHandler.InstallError) {
        var raw = rawImages(images)
        // The Mach install reads the path, the metadata, the frame limits and the reservation
        // of the shared C configuration and ignores the rest.
        let status = configuration.withCConfiguration { config -> Int32 in
            raw.withUnsafeMutableBufferPointer { buffer in
                vigil_crash_mach_install(&config, buffer.baseAddress, UInt32(buffer.count))
            }
        }
        guard status == 0 else { throw CrashHandler.InstallError(path: configuration.reportPath, code: status) }
        vigil_crash_install_terminate_handler()
        UncaughtExceptionRecorder.install()
    }

    /// Replaces the handler's image snapshot (after dyld added an image).
    public static func publish(_ images: [ImageInfo]) {
        var raw = rawImages(images)
        raw.withUnsafeMutableBufferPointer { vigil_crash_mach_publish_images($0.baseAddress, UInt32($0.count)) }
    }

    /// Stops reporting; with `removeFile` the report file is deleted.
    public static func disarm(removeFile: Bool) {
        vigil_crash_mach_disarm(removeFile ? 1 : 0)
    }

    /// The C image records for `images` (UUIDs as their 16 bytes, paths cut to the C capacity).
    static func rawImages(_ images: [ImageInfo]) -> [vigil_image] {
        images.map { info in
            var image = vigil_image()
            image.load_address = UInt(info.loadAddress.value)
            image.size = info.size
            image.bias = UInt(info.loadAddress.value)
            if let uuid = UUID(uuidString: info.id) {
                withUnsafeBytes(of: uuid.uuid) { bytes in
                    withUnsafeMutableBytes(of: &image.id) { target in target.copyBytes(from: bytes.prefix(target.count)) }
                }
                image.id_length = 16
            }
            let path = Array((info.path ?? info.name).utf8.prefix(Int(VIGIL_IMAGE_PATH_CAPACITY) - 1))
            withUnsafeMutableBytes(of: &image.path) { target in
                target.copyBytes(from: path)
                target[path.count] = 0
            }
            image.path_truncated = (info.path ?? info.name).utf8.count >= Int(VIGIL_IMAGE_PATH_CAPACITY) ? 1 : 0
            return image
        }
    }
}
#endif
