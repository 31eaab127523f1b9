import Testing
import VigilRuntime

/// The ProMotion rule of Vigil's display link, shared and tested here; the Apple adapter reads
/// the Info.plist key and the screen's maximum rate and applies the answer.
@Suite("Display link rate policy (ProMotion)")
struct DisplayLinkRatePolicyTests {
    @Test("an iPhone app that sets CADisableMinimumFrameDurationOnPhone gets a link up to the screen's 120 Hz")
    func phoneOptedIn() throws {
        let policy = try #require(DisplayLinkRatePolicy.range(isPhone: true, appDisablesMinimumFrameDuration: true,
                                                               maximumFramesPerSecond: 120))
        #expect(policy.maximum == 120 && policy.preferred == 120 && policy.minimum == 60)
    }

    @Test("without the key an iPhone link stays at the system default (60 Hz), as the app's own rendering does")
    func phoneNotOptedIn() {
        #expect(DisplayLinkRatePolicy.range(isPhone: true, appDisablesMinimumFrameDuration: false, maximumFramesPerSecond: 120) == nil)
    }

    @Test("iPads with ProMotion need no key; 60 Hz screens change nothing")
    func padsAndPlainScreens() {
        #expect(DisplayLinkRatePolicy.range(isPhone: false, appDisablesMinimumFrameDuration: false, maximumFramesPerSecond: 120)?.maximum == 120)
        #expect(DisplayLinkRatePolicy.range(isPhone: true, appDisablesMinimumFrameDuration: true, maximumFramesPerSecond: 60) == nil)
        #expect(DisplayLinkRatePolicy.range(isPhone: false, appDisablesMinimumFrameDuration: true, maximumFramesPerSecond: 60) == nil)
    }
}
