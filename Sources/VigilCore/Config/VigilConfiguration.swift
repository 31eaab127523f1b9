/// Everything the SDK's detectors need to know, as one local value with documented defaults.
///
/// A plain value: the app builds it (or takes ``init()``'s defaults) and hands it to
/// `Vigil.start(_:)`. Remote configuration, when it lands, produces a new value of this type;
/// nothing here reads files or the network.
public struct VigilConfiguration: Sendable, Hashable {
    /// Modules that run; a module not in the set is off (its kill switch). Default: all.
    public var enabledModules: Set<VigilModule> = Set(VigilModule.allCases)
    /// Hang detection settings.
    public var hang = HangConfiguration()
    /// Frame monitoring settings.
    public var frames = FrameConfiguration()
    /// Launch measurement settings.
    public var launch = LaunchConfiguration()
    /// CPU and memory sampling settings.
    public var resource = ResourceConfiguration()
    /// Network request recording settings.
    public var network = NetworkConfiguration()

    /// The defaults: every module on, every setting at its documented default.
    public init() {}

    /// Whether `module` is switched on.
    public func isEnabled(_ module: VigilModule) -> Bool { enabledModules.contains(module) }

    /// Throws every out-of-range value at once; detectors clamp instead (see `clamped()` on
    /// each section), so calling this is for tools and tests that want to refuse bad input.
    public func validate() throws(ConfigurationError) {
        let problems = hang.problems() + frames.problems() + launch.problems() + resource.problems() + network.problems()
        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
    }

    /// Every section clamped into range.
    public func clamped() -> VigilConfiguration {
        var result = self
        result.hang = hang.clamped()
        result.frames = frames.clamped()
        result.launch = launch.clamped()
        result.resource = resource.clamped()
        result.network = network.clamped()
        return result
    }
}
