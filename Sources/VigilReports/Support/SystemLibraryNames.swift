/// Names of Apple's system libraries and frameworks, for telling app images from system
/// images when a report carries no paths (MetricKit).
enum SystemLibraryNames {
    /// Whether `name` is an Apple system library or framework.
    ///
    /// `lib*.dylib` names with Apple's prefixes (`libsystem_`, `libswift`, `libdispatch`,
    /// `libobjc`, `libc++`…) and a list of common framework names count as system.
    static func isSystem(_ name: String) -> Bool {
        if frameworks.contains(name) { return true }
        if name == "dyld" || name == "dyld_sim" { return true }
        guard name.hasSuffix(".dylib") else { return false }
        return dylibPrefixes.contains(where: { name.hasPrefix($0) })
    }

    private static let dylibPrefixes = [
        "libsystem_", "libswift", "libdispatch", "libobjc", "libc++", "libdyld", "libxpc", "libcorecrypto",
        "libcommonCrypto", "libcompiler_rt", "libunwind", "libmacho", "libcache", "libremovefile", "libkeymgr",
        "libquarantine", "libcopyfile", "libsqlite3", "libz.", "libicucore", "libMobileGestalt", "libnetwork",
        "libboringssl", "libAccessibility", "libate", "libbsm", "libcoretls", "libdns_services", "libenergytrace",
        "libFontParser", "libGFX", "libLLVM", "liblog_", "liblzma", "libmis", "libnetworkextension", "libobjc-",
        "libpcap", "libresolv", "libsandbox", "libtailspin", "libutil", "libxml2", "libxslt", "libbz2",
        "libarchive", "libapple_nghttp2", "libTrueTypeScaler", "libCRFSuite", "libdscsym", "libdyld",
    ]

    private static let frameworks: Set<String> = [
        "UIKitCore", "UIKit", "Foundation", "CoreFoundation", "SwiftUI", "SwiftUICore", "GraphicsServices",
        "QuartzCore", "CoreGraphics", "CoreText", "CoreData", "CFNetwork", "Security", "AppKit", "HIToolbox",
        "WebKit", "WebCore", "JavaScriptCore", "WebKitLegacy", "AVFoundation", "AVFCore", "AVFAudio", "AudioToolbox",
        "CoreAudio", "CoreMedia", "MediaToolbox", "VideoToolbox", "CoreVideo", "Metal", "MetalKit", "CoreImage",
        "ImageIO", "CoreML", "Vision", "CoreLocation", "MapKit", "CoreMotion", "StoreKit", "Combine", "os",
        "BackBoardServices", "FrontBoardServices", "RunningBoardServices", "BaseBoard", "AssertionServices",
        "UIFoundation", "TextInput", "TextInputCore", "UIKitServices", "CoreServices", "CoreServicesInternal",
        "LaunchServices", "MobileCoreServices", "IOKit", "IOSurface", "ColorSync", "CoreUI", "CoreAnimation",
        "Accelerate", "vImage", "libvDSP", "CloudKit", "CoreBluetooth", "GameController", "SpriteKit", "SceneKit",
        "RealityKit", "ARKit", "UserNotifications", "Network", "NetworkExtension", "Photos", "PhotosUI",
        "Contacts", "EventKit", "HealthKit", "HomeKit", "Intents", "SafariServices", "MessageUI", "CoreHaptics",
        "PassKit", "AuthenticationServices", "LocalAuthentication", "CryptoKit", "CoreTelephony", "SystemConfiguration",
        "ExtensionFoundation", "ExtensionKit", "PlugInKit", "MediaExperience", "AppSupport", "ManagedConfiguration",
        "CoreUtils", "Sharing", "ProtocolBuffer", "CoreAnalytics", "AttributeGraph", "DocumentManager",
        "FileProvider", "ShareSheet", "SiriKit", "OpenGLES", "GLKit", "GameKit", "iAd", "Social", "Accounts",
        "AddressBook", "CoreSpotlight", "WatchConnectivity", "WidgetKit", "ActivityKit", "CallKit", "PushKit",
        "OSLog", "_Concurrency", "Dispatch", "ObjectiveC",
    ]
}
