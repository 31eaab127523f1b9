import VigilCore

/// Decides whether an image is the app's own code — what the issue view highlights and what
/// fingerprints are built from.
///
/// On Apple platforms the app's images live inside its bundle (`….app/`), except the Swift
/// runtime copies some apps embed. On Linux the app is every image outside the system's and
/// the toolchain's library folders (the executable, and libraries shipped with it).
public struct InAppPolicy: Sendable, Hashable {
    /// Path prefixes of system images.
    public var systemPrefixes: [String] = ["/usr/", "/lib/", "/lib64/", "/System/", "/opt/swift/", "/Library/",
                                           "/Developer/", "/Applications/Xcode", "/private/preboot/", "/snap/"]
    /// Image-name prefixes of runtime libraries, wherever they are installed.
    public var runtimeNamePrefixes: [String] = ["libswift", "libFoundation", "libdispatch", "libBlocksRuntime",
                                                "libc.so", "libc++", "libstdc++", "libm.so", "libpthread", "ld-linux",
                                                "linux-vdso", "libobjc", "libsystem_", "libdyld", "dyld",
                                                "lib_FoundationICU", "libicu", "libXCTest", "libunwind"]

    /// The default policy.
    public init() {}

    /// Whether `image` is the app's own code.
    public func isInApp(_ image: ImageInfo) -> Bool {
        if image.name.hasPrefix("<") { return false }
        if runtimeNamePrefixes.contains(where: { image.name.hasPrefix($0) }) { return false }
        guard let path = image.path, !path.isEmpty else {
            // Without a path, a name that looks like a system library is not the app's.
            return !image.name.hasSuffix(".dylib") && !image.name.containsBytes(".so")
        }
        if path.containsBytes(".app/") {
            return !path.containsBytes("/Frameworks/libswift")
        }
        return !systemPrefixes.contains(where: { path.hasPrefix($0) })
    }
}
