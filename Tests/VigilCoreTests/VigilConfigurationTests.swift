import Testing
import VigilCore

@Suite("Configuration")
struct VigilConfigurationTests {
    @Test("the defaults are the documented ones and valid")
    func defaults() throws {
        let configuration = VigilConfiguration()
        try configuration.validate()
        #expect(configuration.enabledModules == Set(VigilModule.allCases))
        #expect(configuration.hang.thresholdMs == 2000)
        #expect(configuration.hang.fatalThresholdMs == 8000)
        #expect(configuration.hang.samplingStart(forThresholdMs: 2000) == 500)
        #expect(configuration.hang.sampleIntervalMs == 50)
        #expect(configuration.hang.dailyCapPerTopFrame == 10)
        #expect(configuration.hang.slowTurnMs == 250)
        #expect(configuration.frames.slowDroppedFrames == 3)
        #expect(configuration.frames.severeDroppedFrames == 7)
        #expect(configuration.frames.frozenFrameMs == 700)
        #expect(configuration.launch.maximumLaunchMs == 180_000)
        #expect(configuration.resource.sampleIntervalMs == 5000)
        #expect(configuration.resource.cpuBlockThresholdPercent == 80)
    }

    @Test("validate lists every out-of-range field; clamped() fixes them")
    func validation() {
        var configuration = VigilConfiguration()
        configuration.hang.thresholdMs = 20
        configuration.hang.sampleIntervalMs = .nan
        configuration.frames.severeDroppedFrames = 2
        configuration.resource.cpuBlockWindowMs = 10
        configuration.launch.maximumLaunchMs = -1
        do {
            try configuration.validate()
            Issue.record("expected a configuration error")
        } catch {
            #expect(Set(error.problems.map(\.field)) == [
                "hang.thresholdMs", "hang.sampleIntervalMs", "frames.severeDroppedFrames",
                "resource.cpuBlockWindowMs", "launch.maximumLaunchMs",
            ])
        }
        let fixed = configuration.clamped()
        #expect(fixed.hang.thresholdMs == 100)
        #expect(fixed.hang.sampleIntervalMs == 50)
        #expect(fixed.frames.severeDroppedFrames == 3)
        #expect(fixed.resource.cpuBlockWindowMs == 5000)
        #expect(fixed.launch.maximumLaunchMs == 1000)
        #expect(throws: Never.self) { try fixed.validate() }
    }

    @Test("modules switch off one by one")
    func killSwitch() {
        var configuration = VigilConfiguration()
        configuration.enabledModules.remove(.hang)
        #expect(!configuration.isEnabled(.hang))
        #expect(configuration.isEnabled(.frames))
    }
}
