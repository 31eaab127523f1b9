import Foundation
import Testing
@testable import VigilLaunch

extension RealThreads {
    @Suite("Core pinning")
    struct LaunchCorePinningTests {
        init() { MainQueueProbe.install() }

        /// Independent tasks that each burn 1 ms of CPU inside `ledger`: `pool` on the pool,
        /// `mainLane` on the main lane.
        static func burningGraph(pool: Int, mainLane: Int, ledger: CoreLedger) throws -> LaunchGraph {
            try LaunchGraph {
                for index in 0..<pool {
                    LaunchTask("bg-\(index)") { ledger.run { LaunchRehearsal.burnCPU(milliseconds: 1) } }
                }
                for index in 0..<mainLane {
                    LaunchTask("ui-\(index)", lane: .main) { ledger.run { LaunchRehearsal.burnCPU(milliseconds: 1) } }
                }
            }
        }

        @Test("a core set lists its cores, and a single-core set holds exactly one")
        func coreSets() {
            #expect(LaunchCorePinning.CoreSet.single(0).cores == [0])
            #expect(LaunchCorePinning.CoreSet.single(5).cores == [5])
            #expect(LaunchCorePinning.CoreSet.single(70).cores == [70])
            #expect(LaunchCorePinning.CoreSet.single(1_024).cores.isEmpty)
            #expect(LaunchCorePinning.CoreSet.single(-1).cores.isEmpty)
        }

        @Test("pinning is on only when asked for and the slots are exactly the thread's cores")
        func activation() {
            let allowed = LaunchCorePinning.currentCores()?.cores.count ?? 0
            #expect(!LaunchCorePinning(slots: 1, enabled: true).isActive)
            #expect(!LaunchCorePinning(slots: allowed + 1, enabled: true).isActive)
            #expect(!LaunchCorePinning(slots: allowed, enabled: false).isActive)
            #if os(Linux)
            #expect(allowed >= 1)
            let pinning = LaunchCorePinning(slots: allowed, enabled: true)
            #expect(pinning.isActive == (allowed > 1))
            if pinning.isActive {
                #expect(pinning.slotCores == LaunchCorePinning.currentCores()?.cores)
                #expect(pinning.allowed == LaunchCorePinning.currentCores())
            }
            #else
            #expect(LaunchCorePinning.currentCores() == nil)
            #endif
        }

        #if os(Linux)
        @Test("confining a thread to one core takes effect, and confining it back restores its cores")
        func confineAndRestore() async {
            let outcome = await onThread { () -> (pinned: [Int]?, restored: Bool) in
                guard let saved = LaunchCorePinning.currentCores(), let first = saved.cores.first else {
                    return (nil, false)
                }
                let accepted = LaunchCorePinning.confine(to: .single(first))
                let pinned = LaunchCorePinning.currentCores()?.cores
                LaunchCorePinning.confine(to: saved)
                return (accepted ? pinned : nil, LaunchCorePinning.currentCores() == saved)
            }
            #expect(outcome.pinned?.count == 1)
            #expect(outcome.restored)
        }
        #endif

        @Test("pinned, every running synchronous task holds a core no other running task holds, and the caller gets its cores back")
        func tasksOwnTheirCores() async throws {
            let ledger = CoreLedger()
            let graph = try Self.burningGraph(pool: 12, mainLane: 4, ledger: ledger)
            let runner = LaunchRunner(graph: graph)
            let pinned = LaunchCorePinning(slots: runner.cores, enabled: true).isActive
            let (result, before, after) = await onMainQueue {
                let before = LaunchCorePinning.currentCores()
                let result = runner.run(until: .firstFrame, deadline: .seconds(30))
                return (result, before, LaunchCorePinning.currentCores())
            }
            #expect(result.reachedMilestone)
            #expect(result.tasks.allSatisfy { $0.state == .succeeded })
            #expect(before == after)
            #expect(ledger.clashes == 0)
            if pinned {
                #expect(ledger.coreCounts == [1])
                #expect(ledger.cores.count <= runner.cores)
            }
        }

        @Test("with pinning turned off, tasks keep every core their thread may use")
        func pinningOff() async throws {
            let ledger = CoreLedger()
            let graph = try Self.burningGraph(pool: 4, mainLane: 0, ledger: ledger)
            let runner = LaunchRunner(graph: graph, options: .init(pinsTasksToCores: false))
            let result = await onThread { runner.run(until: .firstFrame, deadline: .seconds(30)) }
            #expect(result.reachedMilestone)
            let allowed = LaunchCorePinning.currentCores()?.cores.count
            #expect(ledger.coreCounts == (allowed.map { Set([$0]) } ?? Set<Int>()))
        }
    }
}

/// Records, for tasks that run through it, which cores their thread may use, and counts a
/// clash when a task pinned to one core starts while another running task holds that core.
final class CoreLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var held: Set<Int> = []
    private var seenCounts: Set<Int> = []
    private var seenCores: Set<Int> = []
    private var clashCount = 0

    func run(_ body: () -> Void) {
        let cores = LaunchCorePinning.currentCores()?.cores
        let single = cores?.count == 1 ? cores?.first : nil
        lock.lock()
        if let cores {
            seenCounts.insert(cores.count)
            seenCores.formUnion(cores)
        }
        if let single {
            if held.contains(single) { clashCount += 1 }
            held.insert(single)
        }
        lock.unlock()
        body()
        lock.lock()
        if let single { held.remove(single) }
        lock.unlock()
    }

    var clashes: Int { lock.withLock { clashCount } }
    var coreCounts: Set<Int> { lock.withLock { seenCounts } }
    var cores: Set<Int> { lock.withLock { seenCores } }
}
