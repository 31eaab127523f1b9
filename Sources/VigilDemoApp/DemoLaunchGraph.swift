import VigilLaunch

/// The launch tasks of the demo's shop app: what `vigil-sample launch` really runs with the
/// launch runner in its `didFinishLaunching`, and what `vigil demo --history-days` simulates
/// for the launches of its simulated history — one graph, so the history's task waterfalls have
/// the shape the live launch measures.
///
/// Fourteen tasks on the three lanes: foundations (crash reporter, config, keychain), a serial
/// storage lane (open, then migrate), awaited network and keychain work, the main-thread UI
/// (theme, root view), work after the first frame (analytics, catalog preload, recommendations)
/// and an idle cache trim. In the regressed release (`0.9.0` in the history) the root view waits
/// for the catalog preload, which therefore runs before the first frame, on the critical path;
/// the next release moved it back after the first frame.
public enum DemoLaunchGraph {
    /// The deadline the app gives the runner for its first frame, in ms.
    public static let deadlineMs = 800

    /// The graph with each task's duration, in ms, for a device of the demo machine's speed;
    /// `regressed` puts the catalog preload before the first frame.
    public static func file(regressed: Bool = false) -> LaunchGraphFile {
        func task(_ id: String, _ durationMs: Double, _ work: LaunchGraphFile.Work, lane: LaunchLane = .concurrent,
                  phase: LaunchPhase = .beforeFirstFrame, dependencies: [String] = [], priority: Int = 0,
                  timeoutMs: Double? = nil) -> LaunchGraphFile.Task {
            LaunchGraphFile.Task(spec: LaunchTaskSpec(id: id, dependencies: dependencies, lane: lane, phase: phase,
                                                      priority: priority, timeoutMs: timeoutMs, estimatedMs: durationMs),
                                 durationMs: durationMs, work: work)
        }
        return LaunchGraphFile(cores: 2, tasks: [
            task("crash-reporter", 4, .compute, priority: 10),
            task("config", 12, .block),
            task("keychain", 18, .await),
            task("db-open", 20, .block, lane: .serial("storage"), dependencies: ["config"]),
            task("db-migrate", 25, .compute, lane: .serial("storage")),
            task("feature-flags", 35, .await, dependencies: ["config"], timeoutMs: 400),
            task("session-restore", 30, .await, dependencies: ["keychain", "db-migrate"]),
            task("theme", 8, .compute, lane: .main, dependencies: ["config"]),
            task("catalog-preload", 90, .compute, phase: regressed ? .beforeFirstFrame : .afterFirstFrame,
                 dependencies: ["db-migrate"]),
            task("root-view", 15, .compute, lane: .main,
                 dependencies: ["theme", "session-restore", "feature-flags"] + (regressed ? ["catalog-preload"] : []),
                 priority: 10),
            task("analytics", 10, .block, phase: .afterFirstFrame, dependencies: ["config"], timeoutMs: 200),
            task("recommendations", 40, .await, phase: .afterFirstFrame, dependencies: ["session-restore"]),
            task("prefetch-images", 20, .compute, phase: .afterFirstFrame, dependencies: ["catalog-preload"]),
            task("image-cache-trim", 6, .compute, lane: .main, phase: .idle),
        ])
    }
}
