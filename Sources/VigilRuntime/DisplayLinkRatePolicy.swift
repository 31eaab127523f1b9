/// The frame rate Vigil's own display link asks for on Apple platforms, so that it ticks as often
/// as the app can render and drops are counted against the rate the app really gets.
///
/// On ProMotion iPhones a `CADisplayLink` is held at 60 Hz unless the app's Info.plist sets
/// `CADisableMinimumFrameDurationOnPhone` to true; an app that sets it renders up to the screen's
/// maximum (120 Hz), and a link left at 60 Hz would see two of its frames per tick and miss every
/// single-frame drop. iPads with ProMotion need no key. The monitor then takes each frame's
/// duration from the link itself (`targetTimestamp − timestamp`, the actual interval, which
/// follows the system's rate changes), never from the screen's nominal rate.
///
/// Pure, shared so that it is tested on Linux; `DisplayLinkFrameSource` reads the key and the
/// screen and applies the answer.
public struct DisplayLinkRatePolicy: Sendable, Hashable {
    /// The `preferredFrameRateRange` to set (frames per second).
    public var minimum: Float
    public var maximum: Float
    public var preferred: Float

    /// The Info.plist key that lifts the 60 Hz cap of display links on ProMotion iPhones.
    public static let infoKey = "CADisableMinimumFrameDurationOnPhone"

    /// The range to request, or nil to keep the system's default. `isPhone`: the device is an
    /// iPhone (the cap applies only there); `appDisablesMinimumFrameDuration`: the app's
    /// Info.plist value of ``infoKey``; `maximumFramesPerSecond`: the screen's.
    public static func range(isPhone: Bool, appDisablesMinimumFrameDuration: Bool, maximumFramesPerSecond: Int) -> DisplayLinkRatePolicy? {
        guard maximumFramesPerSecond > 60 else { return nil }
        if isPhone && !appDisablesMinimumFrameDuration { return nil }
        let maximum = Float(maximumFramesPerSecond)
        return DisplayLinkRatePolicy(minimum: 60, maximum: maximum, preferred: maximum)
    }
}
