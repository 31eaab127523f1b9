import Testing
import VigilCore

@Suite("Network sampling")
struct NetworkSamplingTests {
    private func sampler(rate: Double, slowMs: Double = 1000, keepFailures: Bool = true, keepSlow: Bool = true) -> NetworkSampler {
        var configuration = NetworkConfiguration()
        configuration.sampleRate = rate
        configuration.slowThresholdMs = slowMs
        configuration.alwaysKeepFailures = keepFailures
        configuration.alwaysKeepSlow = keepSlow
        return NetworkSampler(configuration: configuration)
    }

    @Test("failures and slow requests are kept at a rate of zero; ordinary ones are not")
    func alwaysKept() {
        var generator = SeededGenerator(seed: 1)
        let sampler = sampler(rate: 0)
        #expect(sampler.decide(status: 500, failed: false, totalMs: 10, traceId: nil, using: &generator) == .keptFailure)
        #expect(sampler.decide(status: 404, failed: false, totalMs: 10, traceId: nil, using: &generator) == .keptFailure)
        #expect(sampler.decide(status: nil, failed: true, totalMs: 10, traceId: nil, using: &generator) == .keptFailure)
        #expect(sampler.decide(status: 200, failed: false, totalMs: 1000, traceId: nil, using: &generator) == .keptSlow)
        #expect(sampler.decide(status: 200, failed: false, totalMs: 999.9, traceId: nil, using: &generator) == .droppedBySampling)
        #expect(sampler.decide(status: 399, failed: false, totalMs: 5, traceId: nil, using: &generator) == .droppedBySampling)
    }

    @Test("the keep-always rules can be switched off")
    func keepRulesOff() {
        var generator = SeededGenerator(seed: 1)
        let sampler = sampler(rate: 0, keepFailures: false, keepSlow: false)
        #expect(sampler.decide(status: 500, failed: true, totalMs: 50_000, traceId: nil, using: &generator) == .droppedBySampling)
    }

    @Test("the rate keeps about that share of ordinary requests", arguments: [0.1, 0.25, 0.5, 0.9])
    func rate(rate: Double) {
        var generator = SeededGenerator(seed: 42)
        let sampler = sampler(rate: rate)
        let kept = (0..<20_000).filter { _ in
            sampler.decide(status: 200, failed: false, totalMs: 20, traceId: nil, using: &generator) == .keptSampled
        }.count
        #expect(abs(Double(kept) / 20_000 - rate) < 0.015)
    }

    @Test("requests of one trace get one decision, and trace ids are kept at the rate")
    func traceConsistency() {
        var generator = SeededGenerator(seed: 5)
        let sampler = sampler(rate: 0.3)
        var kept = 0
        for _ in 0..<10_000 {
            let traceId = TraceIdentifier.traceId(using: &generator)
            let first = sampler.decide(status: 200, failed: false, totalMs: 1, traceId: traceId, using: &generator)
            for _ in 0..<3 {
                #expect(sampler.decide(status: 204, failed: false, totalMs: 2, traceId: traceId, using: &generator) == first)
            }
            if first == .keptSampled { kept += 1 }
        }
        #expect(abs(Double(kept) / 10_000 - 0.3) < 0.02)
        #expect(NetworkSampler.fraction(ofTraceId: "0af7651916cd43dd8000000000000000") == 0)
        #expect(NetworkSampler.fraction(ofTraceId: "nonsense") == nil)
    }
}
