import VigilCore
import VigilLaunch

/// A random, valid launch graph shape with durations, drawn from a seeded generator: up to
/// `maxTasks` tasks on the main, concurrent and two serial lanes over all three phases, with
/// dependencies on earlier tasks only (so it is acyclic) and phases never earlier than a
/// dependency's.
struct RandomLaunchGraph {
    var specs: [LaunchTaskSpec]
    var durationsMs: [Double]
    var failing: Set<Int>
    var cores: Int

    init(seed: UInt64, maxTasks: Int, allowTimeouts: Bool = true, allowFailures: Bool = true) {
        var generator = SeededGenerator(seed: seed)
        let count = Int.random(in: 1...maxTasks, using: &generator)
        cores = Int.random(in: 1...4, using: &generator)
        specs = []
        durationsMs = []
        failing = []
        let lanes: [LaunchLane] = [.main, .concurrent, .concurrent, .concurrent, .serial("a"), .serial("b")]
        for index in 0..<count {
            var dependencies: [Int] = []
            if index > 0 {
                let wanted = Int.random(in: 0...min(3, index), using: &generator)
                for _ in 0..<wanted {
                    // Favour recent tasks, as launch graphs do: long chains, some fan-in.
                    let back = Int.random(in: 1...min(index, 6), using: &generator)
                    let candidate = Bool.random(using: &generator) ? index - back : Int.random(in: 0..<index, using: &generator)
                    if !dependencies.contains(candidate) { dependencies.append(candidate) }
                }
            }
            var phase = dependencies.map { specs[$0].phase }.max() ?? .beforeFirstFrame
            if Int.random(in: 0..<5, using: &generator) == 0, let later = LaunchPhase.allCases.first(where: { $0 > phase }) {
                phase = later
            }
            let lane = lanes.randomElement(using: &generator) ?? .concurrent
            let suspends = lane != .main && Int.random(in: 0..<4, using: &generator) == 0
            let duration = Int.random(in: 0..<8, using: &generator) == 0 ? 0 : Double(Int.random(in: 1...20, using: &generator))
            var timeout: Double?
            if allowTimeouts, Int.random(in: 0..<10, using: &generator) == 0 {
                timeout = Double(Int.random(in: 1...25, using: &generator))
            }
            if allowFailures, Int.random(in: 0..<12, using: &generator) == 0 { failing.insert(index) }
            specs.append(LaunchTaskSpec(id: "t\(index)", dependencies: dependencies.map { "t\($0)" }, lane: lane,
                                        phase: phase, priority: Int.random(in: -1...1, using: &generator),
                                        timeoutMs: timeout,
                                        estimatedMs: Bool.random(using: &generator) ? duration : nil,
                                        suspends: suspends))
            durationsMs.append(duration)
        }
    }
}
