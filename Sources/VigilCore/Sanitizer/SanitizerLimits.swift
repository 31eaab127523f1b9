/// Upper bounds the ``EventSanitizer`` enforces on every string and collection of an event.
///
/// The defaults keep the largest legal event (a crash with every thread and image) well under
/// the server's 5 MB batch limit while never cutting a real-world report short in practice.
public struct SanitizerLimits: Sendable, Hashable {
    /// Identifiers and names (page, image name, function, URL template…), in UTF-8 bytes.
    public var maxLineBytes = 1024
    /// Free text (crash reason, log message), in UTF-8 bytes.
    public var maxTextBytes = 16 * 1024
    /// Tags per event.
    public var maxTags = 64
    /// A tag key, in UTF-8 bytes.
    public var maxTagKeyBytes = 64
    /// A tag value, in UTF-8 bytes.
    public var maxTagValueBytes = 256
    /// Attributes per span or log.
    public var maxAttributes = 128
    /// Frames per stack.
    public var maxFramesPerStack = 512
    /// Distinct stacks per hang.
    public var maxStacks = 64
    /// Threads per crash.
    public var maxThreads = 512
    /// Images per event.
    public var maxImages = 4096
    /// Registers per crash.
    public var maxRegisters = 128
    /// Frozen frames per frames window, and task spans per launch.
    public var maxItems = 512

    /// The default bounds.
    public init() {}
}
