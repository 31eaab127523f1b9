import Testing
import VigilBLE
import VigilBLESimulation

/// The retransmission timeout (``RoundTripEstimator``) and how ``TransferSender`` uses it, on
/// virtual time: round trips go in as numbers, transfers run on the simulated link.
@Suite("Retransmission timeout")
struct RetransmissionTimeoutTests {
    static let ms = 1_000_000.0
    static let link = SimulationParameters(link: LinkParameters(phy: .twoM, attMTU: 247, connectionIntervalMs: 15, packetsPerEvent: 5))

    static func estimator() -> RoundTripEstimator {
        RoundTripEstimator(initial: 1_000 * ms, minimum: 20 * ms, maximum: 4_000 * ms)
    }

    @Test("the first sample sets SRTT to it and RTTVAR to half of it; the timeout is SRTT + 4 × RTTVAR (RFC 6298 2.2)")
    func firstSample() {
        var estimator = Self.estimator()
        #expect(estimator.timeout == 1_000 * Self.ms)
        #expect(estimator.smoothed == nil)
        estimator.add(sample: 30 * Self.ms)
        #expect(estimator.smoothed == 30 * Self.ms)
        #expect(estimator.deviation == 15 * Self.ms)
        #expect(estimator.timeout == 90 * Self.ms)
    }

    @Test("later samples move SRTT by 1/8 and RTTVAR by 1/4 of the difference (RFC 6298 2.3)")
    func laterSamples() {
        var estimator = Self.estimator()
        estimator.add(sample: 40 * Self.ms)
        estimator.add(sample: 20 * Self.ms)
        // RTTVAR = 3/4 × 20 + 1/4 × |40 − 20| = 20; SRTT = 7/8 × 40 + 1/8 × 20 = 37.5.
        #expect(abs(estimator.deviation - 20 * Self.ms) < 1)
        #expect(abs(estimator.smoothed! - 37.5 * Self.ms) < 1)
        #expect(abs(estimator.timeout - 117.5 * Self.ms) < 1)
    }

    @Test("a steady round trip keeps a margin of at least the granularity, and never a timeout under the floor")
    func floorAndGranularity() {
        var estimator = Self.estimator()
        for _ in 0..<200 { estimator.add(sample: 10 * Self.ms) }
        #expect(estimator.timeout == 20 * Self.ms, "the floor")
        var fine = RoundTripEstimator(initial: 1_000 * Self.ms, minimum: 1 * Self.ms, maximum: 4_000 * Self.ms, granularity: 2 * Self.ms)
        for _ in 0..<200 { fine.add(sample: 10 * Self.ms) }
        #expect(abs(fine.timeout - 12 * Self.ms) < 1, "SRTT + G once the deviation has decayed")
    }

    @Test("each expiry doubles the timeout up to the ceiling; the next sample recomputes it (RFC 6298 5.5, 5.7)")
    func backoff() {
        var estimator = Self.estimator()
        estimator.add(sample: 100 * Self.ms)
        #expect(estimator.timeout == 300 * Self.ms)
        estimator.backOff()
        #expect(estimator.timeout == 600 * Self.ms)
        for _ in 0..<5 { estimator.backOff() }
        #expect(estimator.timeout == 4_000 * Self.ms)
        estimator.add(sample: 100 * Self.ms)
        #expect(estimator.timeout < 300 * Self.ms)
    }

    @Test("fed every chunk of an acknowledgement covering eight, the timeout falls below the next round trip; fed one sample per acknowledgement, it does not")
    func oneSamplePerAcknowledgement() {
        // Round trips as a busy peer gives them (from a trace over Bumble): each acknowledgement
        // covers eight chunks sent ~0.1 ms apart, and the round trip swings between acknowledgements.
        let roundTrips: [Double] = [14, 11, 32, 27, 24, 20, 39, 13, 16, 29, 12, 33, 25, 19, 36, 15]
        var perChunk = Self.estimator()
        var perAcknowledgement = Self.estimator()
        var perChunkShort = 0
        var perAcknowledgementShort = 0
        for (index, roundTrip) in roundTrips.enumerated() {
            if index >= 4 {
                // Would this round trip have expired the timeout in force when it began?
                if perChunk.timeout < roundTrip * Self.ms { perChunkShort += 1 }
                if perAcknowledgement.timeout < roundTrip * Self.ms { perAcknowledgementShort += 1 }
            }
            for chunk in 0..<8 { perChunk.add(sample: (roundTrip - Double(chunk) * 0.1) * Self.ms) }
            perAcknowledgement.add(sample: roundTrip * Self.ms)
        }
        #expect(perChunkShort > 0)
        #expect(perAcknowledgementShort == 0)
    }

    @Test("on a lossless link whose every acknowledgement is up to 30 ms late, no chunk is resent", arguments: [1, 2, 3, 4] as [UInt64])
    func lateAcknowledgementsAreNotLosses(seed: UInt64) throws {
        // Late, never lost: the peer stalls a little before each acknowledgement.
        let faults = LinkFaults(delay: 1, maxDelayMs: 30, directions: .toCentral)
        let outcome = TransferSimulation(parameters: Self.link, faults: faults, bytes: 300_000, seed: seed).run()
        let report = try #require(try? outcome.result?.get(), "\(String(describing: outcome.result))")
        #expect(outcome.byteExact)
        #expect(outcome.statistics.valuesLost == 0 && outcome.statistics.valuesDelayed > 0)
        #expect(report.retransmissions == 0, "timeouts: \(report.timeoutRetransmissions), spurious: \(report.spuriousTimeouts)")
    }

    @Test("a timeout whose next acknowledgements show the other expired chunks arriving resends only the oldest", arguments: [1, 2, 3, 4] as [UInt64])
    func spuriousTimeoutResendsOne(seed: UInt64) throws {
        // A fifth of the acknowledgements up to 40 ms late: some timeouts expire, all spuriously.
        let faults = LinkFaults(delay: 0.2, maxDelayMs: 40, directions: .toCentral)
        let outcome = TransferSimulation(parameters: Self.link, faults: faults, bytes: 300_000, seed: seed).run()
        let report = try #require(try? outcome.result?.get(), "\(String(describing: outcome.result))")
        #expect(outcome.byteExact && outcome.statistics.valuesLost == 0)
        // Each timeout resends its oldest chunk; one judged spurious resends nothing more.
        #expect(report.spuriousTimeouts > 0)
        #expect(report.timeoutRetransmissions <= 2 * report.spuriousTimeouts, "\(report)")
    }

    @Test("with real losses (5 % of the writes) timeouts still lead to every lost chunk being resent: byte-exact")
    func lostChunksAfterATimeoutAreResent() throws {
        // Every value toward the peer lost 5 % of the time: tail losses end in timeouts.
        let outcome = TransferSimulation(parameters: Self.link, faults: LinkFaults(loss: 0.05, directions: .toPeripheral),
                                         bytes: 200_000, seed: 9).run()
        let report = try #require(try? outcome.result?.get(), "\(String(describing: outcome.result))")
        #expect(outcome.byteExact)
        #expect(report.retransmissions >= outcome.statistics.valuesLost)
    }
}
