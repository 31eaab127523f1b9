/// A monitoring module that can be switched off on its own (the per-module kill switch).
public enum VigilModule: String, Sendable, Hashable, CaseIterable, Codable {
    /// Main-thread hang detection (``HangDetector``).
    case hang
    /// Frame rate, dropped and frozen frames (``FrameMonitor``).
    case frames
    /// Launch phases and classification (``LaunchTimeline``).
    case launch
    /// CPU and memory sampling (``ResourceWatch``).
    case resource
    /// Network request instrumentation.
    case network
    /// Crash capture.
    case crash
}
