/// What `GET /api/v1/launch/waterfall` returns and the launch page draws: each release's launch
/// phases (medians of each mark since the launch's origin) and the task waterfall of a typical
/// launch that carried orchestrator spans.
public struct LaunchWaterfallReport: Sendable, Hashable, Codable {
    /// The launch kind the phases are of (`cold` unless asked otherwise).
    public var kind: String
    /// One entry per app version, newest first.
    public var releases: [LaunchPhaseStat]
    /// The median-TTID launch among the most recent ones with task spans; nil when none has any.
    public var typical: TypicalLaunch?
}

/// One release's launch phases: the median time from the launch's origin (process start for
/// cold and warm launches) to each mark. Each mark's median is taken on its own, so a phase
/// drawn between two medians is not a median of that phase.
public struct LaunchPhaseStat: Sendable, Hashable, Codable {
    /// App version.
    public var version: String
    /// Launches of this kind counted.
    public var launches: Int64
    /// Median origin → `main` (the pre-main phase), in ms; nil when no launch reported it.
    public var mainMs: Double?
    /// Median origin → `didFinishLaunching`, in ms.
    public var didFinishMs: Double?
    /// Median origin → first frame (TTID), in ms.
    public var firstFrameMs: Double?
    /// Median origin → fully drawn (TTFD), in ms.
    public var fullyDrawnMs: Double?

    /// The waterfall's bars: (phase, start, end) in ms, skipping marks nobody reported; each
    /// starts where the previous reported mark ended (never after its own end).
    public var phases: [(name: String, startMs: Double, endMs: Double)] {
        var result: [(String, Double, Double)] = []
        var previous = 0.0
        for (name, mark) in [("pre-main", mainMs), ("main → didFinishLaunching", didFinishMs),
                             ("→ first frame", firstFrameMs), ("→ fully drawn", fullyDrawnMs)] {
            guard let mark else { continue }
            result.append((name, min(previous, mark), mark))
            previous = max(previous, mark)
        }
        return result
    }
}

/// The launch a task waterfall shows: the one with the median TTID among the most recent
/// launches (at most ``LaunchWaterfallReport/candidateLimit``) that carry task spans.
public struct TypicalLaunch: Sendable, Hashable, Codable {
    /// The `launch` event's id.
    public var eventID: String
    /// Its app version.
    public var version: String
    /// Its launch kind.
    public var kind: String
    /// Its time to initial display, in ms.
    public var ttidMs: Double?
    /// Launches with task spans it was chosen among.
    public var candidates: Int
    /// Its tasks, the critical path marked.
    public var timeline: LaunchTaskTimeline
}

extension LaunchWaterfallReport {
    /// The most recent launches with task spans read to choose the typical one.
    public static let candidateLimit = 200
}
