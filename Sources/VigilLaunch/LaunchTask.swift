import Foundation

/// One unit of launch work: a ``LaunchTaskSpec`` and the closure that does it.
///
/// Three kinds of work exist, and each holds resources differently:
/// - `init(_:lane:…work:)`: synchronous work that holds one core's slot while it runs (also
///   while it blocks, e.g. on file I/O);
/// - ``onMain(_:phase:priority:dependencies:timeout:estimatedMs:work:)``: synchronous work
///   isolated to the main actor, run on the main thread;
/// - ``suspending(_:lane:phase:priority:dependencies:timeout:estimatedMs:work:)``: `async` work
///   started as a Swift task; it holds no slot, so awaiting a network or disk answer does not
///   keep CPU-bound tasks waiting.
public struct LaunchTask: Sendable {
    /// What the task does, by kind.
    enum Work: Sendable {
        case blocking(@Sendable () throws -> Void)
        case mainActor(@MainActor @Sendable () throws -> Void)
        case suspending(@Sendable () async throws -> Void)
    }

    /// The task's declared shape.
    public private(set) var spec: LaunchTaskSpec
    let work: Work

    /// The task's id.
    public var id: String { spec.id }

    /// A synchronous task.
    ///
    /// - Parameters:
    ///   - id: unique name (see ``LaunchTaskSpec/id``).
    ///   - lane: `.concurrent` (default), `.main` or `.serial(name)`.
    ///   - phase: when it may start.
    ///   - priority: higher first among ready tasks.
    ///   - dependencies: ids that must succeed first.
    ///   - timeout: how long from its start the runner waits for it; `.never` or nil for ever.
    ///   - estimatedMs: expected run time, for ranking (see ``LaunchTaskSpec/estimatedMs``).
    ///   - work: the work; a thrown error fails the task and skips its dependents.
    public init(_ id: String, lane: LaunchLane = .concurrent, phase: LaunchPhase = .beforeFirstFrame,
                priority: Int = 0, dependencies: [String] = [], timeout: DispatchTimeInterval? = nil,
                estimatedMs: Double? = nil, work: @escaping @Sendable () throws -> Void) {
        spec = LaunchTaskSpec(id: id, dependencies: dependencies, lane: lane, phase: phase, priority: priority,
                              timeoutMs: timeout?.launchMilliseconds, estimatedMs: estimatedMs, suspends: false)
        self.work = .blocking(work)
    }

    /// A main-lane task whose work is isolated to the main actor (UI set-up).
    public static func onMain(_ id: String, phase: LaunchPhase = .beforeFirstFrame, priority: Int = 0,
                              dependencies: [String] = [], timeout: DispatchTimeInterval? = nil,
                              estimatedMs: Double? = nil,
                              work: @escaping @MainActor @Sendable () throws -> Void) -> LaunchTask {
        LaunchTask(spec: LaunchTaskSpec(id: id, dependencies: dependencies, lane: .main, phase: phase,
                                        priority: priority, timeoutMs: timeout?.launchMilliseconds,
                                        estimatedMs: estimatedMs, suspends: false),
                   work: .mainActor(work))
    }

    /// An `async` task that holds no core while it is suspended. On a timeout its Swift task is
    /// cancelled (cooperative cancellation, which is safe); it may not run on the main lane
    /// because the main thread is busy running the launch while it waits.
    public static func suspending(_ id: String, lane: LaunchLane = .concurrent, phase: LaunchPhase = .beforeFirstFrame,
                                  priority: Int = 0, dependencies: [String] = [],
                                  timeout: DispatchTimeInterval? = nil, estimatedMs: Double? = nil,
                                  work: @escaping @Sendable () async throws -> Void) -> LaunchTask {
        LaunchTask(spec: LaunchTaskSpec(id: id, dependencies: dependencies, lane: lane, phase: phase,
                                        priority: priority, timeoutMs: timeout?.launchMilliseconds,
                                        estimatedMs: estimatedMs, suspends: true),
                   work: .suspending(work))
    }

    init(spec: LaunchTaskSpec, work: Work) {
        self.spec = spec
        self.work = work
    }
}
