import Foundation
import Testing
import VigilCore
@testable import VigilServer

/// The pure logic behind the dashboard's pictures: merging stacks into a call tree and laying
/// it out, the launch critical path, log-scale bins, and the SVG they become.
@Suite("dashboard pictures")
struct DashboardPicturesTests {
    static func frames(_ names: String...) -> [FlameFrame] {
        names.map { FlameFrame(name: $0, inApp: $0.hasPrefix("App.")) }
    }

    @Test("stacks sharing their outer frames share nodes, and every node counts the samples through it")
    func mergesSharedPrefixes() {
        var tree = FlameTree()
        tree.add(Self.frames("main", "App.run", "App.load"), count: 40)
        tree.add(Self.frames("main", "App.run", "App.save"), count: 10)
        tree.add(Self.frames("main", "libsystem.wait"), count: 5)
        tree.add(Self.frames("main", "App.run"), count: 3)
        tree.add(Self.frames("main", "ignored"), count: 0)
        #expect(tree.samples == 58)
        #expect(tree.stacks == 4)
        let root = tree.root()
        #expect(root.name == "all" && root.samples == 58)
        let main = root.children[0]
        #expect(root.children.count == 1 && main.name == "main" && main.samples == 58)
        #expect(main.children.map(\.name) == ["App.run", "libsystem.wait"], "heaviest first")
        let run = main.children[0]
        #expect(run.samples == 53 && run.inApp)
        #expect(run.selfSamples == 3, "the stack that ended at App.run")
        #expect(run.children.map { "\($0.name)=\($0.samples)" } == ["App.load=40", "App.save=10"])
        #expect(!main.children[1].inApp)
    }

    @Test("the same name in and out of the app stays two nodes; equal weights sort by name")
    func keepsInAppApart() {
        var tree = FlameTree()
        tree.add([FlameFrame(name: "f", inApp: true)], count: 2)
        tree.add([FlameFrame(name: "f", inApp: false)], count: 2)
        tree.add([FlameFrame(name: "a", inApp: false)], count: 2)
        #expect(tree.root().children.map { "\($0.name)\($0.inApp ? "*" : "")" } == ["a", "f", "f*"])
    }

    @Test("pruning drops nodes under the minimum fraction and below the depth cap, keeping their samples in the parent")
    func prunes() {
        var tree = FlameTree()
        tree.add(Self.frames("main", "a", "b", "c", "d"), count: 997)
        tree.add(Self.frames("main", "rare"), count: 3)
        let pruned = tree.root(minimumFraction: 0.005, maximumDepth: 3)
        #expect(pruned.samples == 1000)
        let main = pruned.children[0]
        #expect(main.children.map(\.name) == ["a"], "3 of 1,000 samples is under 0.5%")
        #expect(main.selfSamples == 3)
        let a = main.children[0]
        #expect(a.children.map(\.name) == ["b"])
        #expect(a.children[0].children.isEmpty, "depth 3 is the last level kept")
        #expect(FlameLayout(pruned).depth == 4)
    }

    @Test("a cap on the nodes kept drops the lightest first and keeps a tree")
    func capsKeptNodes() {
        var tree = FlameTree()
        tree.add(Self.frames("main", "a", "a1"), count: 5)
        tree.add(Self.frames("main", "b", "b1"), count: 3)
        tree.add(Self.frames("main", "c"), count: 1)
        func names(_ node: FlameNode) -> [String] { [node.name] + node.children.flatMap(names) }
        #expect(names(tree.root(maximumNodes: 4)) == ["all", "main", "a", "a1"], "b and b1 weigh 3: keeping both would make 5")
        #expect(names(tree.root(maximumNodes: 5)) == ["all", "main", "a", "a1", "b", "b1"])
        #expect(names(tree.root(maximumNodes: 2)) == ["all", "main"], "a and a1 tie: they go together")
        #expect(names(tree.root(maximumNodes: 6)).count == 7)
        #expect(tree.root(maximumNodes: 0).children.isEmpty)
    }

    @Test("the node cap stops a stack at its deepest existing node and says so")
    func capsNodes() {
        var tree = FlameTree(maximumNodes: 4)
        tree.add(Self.frames("main", "a", "b"), count: 1)
        #expect(!tree.truncated)
        tree.add(Self.frames("main", "x", "y"), count: 2)
        #expect(tree.truncated)
        let main = tree.root().children[0]
        #expect(main.samples == 3 && main.selfSamples == 2)
    }

    @Test("the layout places children side by side from their parent's left edge, in samples")
    func layout() {
        var tree = FlameTree()
        tree.add(Self.frames("main", "a", "a1"), count: 6)
        tree.add(Self.frames("main", "a", "a2"), count: 2)
        tree.add(Self.frames("main", "b"), count: 4)
        let layout = FlameLayout(tree.root())
        #expect(layout.total == 12)
        #expect(layout.depth == 4)
        let cells = layout.cells.map { "\($0.name)@\($0.depth):\($0.offset)+\($0.samples)" }
        #expect(cells == ["all@0:0+12", "main@1:0+12", "a@2:0+8", "a1@3:0+6", "a2@3:6+2", "b@2:8+4"])
    }

    @Test("the flame graph SVG escapes names, marks in-app frames and carries the sample counts")
    func flameSVG() {
        var tree = FlameTree()
        let hostile = "<script>alert('x')</script>&\"y\""
        tree.add([FlameFrame(name: "main", inApp: false), FlameFrame(name: "App.\(hostile)", inApp: true)], count: 7)
        tree.add([FlameFrame(name: "main", inApp: false)], count: 3)
        let svg = SVGChart.flameGraph(tree.root(), title: "t \(hostile)")
        #expect(!svg.contains("<script"))
        #expect(svg.contains(HTML.escape("App.\(hostile)")))
        #expect(svg.contains("data-samples=\"10\""))
        #expect(svg.contains("<rect class=\"inapp\""))
        #expect(svg.components(separatedBy: "class=\"inapp\"").count - 1 == 1)
        #expect(SVGChart.flameGraph(FlameTree().root(), title: "empty").contains("No sampled stacks"))
    }

    // MARK: Critical path

    static func task(_ id: String, start: Double, run: Double, lane: String = "concurrent", worker: String = "pool-1",
                     phase: String = "beforeFirstFrame", after dependencies: [String] = []) -> LaunchTaskTimeline.Task {
        LaunchTaskTimeline.Task(id: id, worker: worker, lane: lane, phase: phase, dependencies: dependencies, startMs: start, runMs: run)
    }

    @Test("the critical path is the longest chain through dependencies, weighed by run time")
    func criticalPathThroughDependencies() {
        // config(10) → db(20) → root(12) = 42 beats keychain(25) → root = 37 and config → theme(6) → root = 28.
        let timeline = LaunchTaskTimeline(tasks: [
            Self.task("config", start: 0, run: 10),
            Self.task("keychain", start: 0, run: 25, worker: "pool-2"),
            Self.task("db", start: 10, run: 20, after: ["config"]),
            Self.task("theme", start: 10, run: 6, worker: "main", after: ["config"]),
            Self.task("root", start: 30, run: 12, worker: "main", after: ["theme", "db", "keychain"]),
            Self.task("analytics", start: 42, run: 100, phase: "afterFirstFrame", after: ["root"]),
        ])
        #expect(timeline.criticalPath == ["config", "db", "root"])
        #expect(timeline.criticalPathMs == 42)
        #expect(timeline.tasks.filter(\.critical).map(\.id).sorted() == ["config", "db", "root"])
        #expect(!timeline.tasks.first { $0.id == "analytics" }!.critical, "after the first frame it does not count")
        #expect(timeline.workers == ["main", "pool-1", "pool-2"])
    }

    @Test("a serial lane's order is an edge: each task waits for the one that started before it")
    func criticalPathThroughSerialLane() {
        let timeline = LaunchTaskTimeline(tasks: [
            Self.task("open", start: 0, run: 20, lane: "serial:storage"),
            Self.task("migrate", start: 20, run: 15, lane: "serial:storage"),
            Self.task("fetch", start: 0, run: 30),
            Self.task("session", start: 35, run: 5, after: ["migrate", "fetch"]),
        ])
        #expect(timeline.criticalPath == ["open", "migrate", "session"])
        #expect(timeline.criticalPathMs == 40)
    }

    @Test("tasks in a dependency cycle stay off the path; unknown dependencies are ignored")
    func criticalPathSurvivesCycles() {
        let timeline = LaunchTaskTimeline(tasks: [
            Self.task("a", start: 0, run: 50, after: ["b"]),
            Self.task("b", start: 0, run: 50, after: ["a"]),
            Self.task("c", start: 0, run: 5, after: ["missing"]),
            Self.task("d", start: 5, run: 5, after: ["c"]),
        ])
        #expect(timeline.criticalPath == ["c", "d"])
        #expect(timeline.criticalPathMs == 10)
        #expect(LaunchTaskTimeline(tasks: []).criticalPath.isEmpty)
    }

    @Test("task spans are read from their launch.task attributes, falling back to the span's own times")
    func readsSpans() {
        let origin = Date(timeIntervalSince1970: 1_800_000_000)
        func span(_ id: String, start: Double, end: Double, _ attributes: [String: AttributeValue]) -> SpanPayload {
            SpanPayload(traceId: "t", spanId: id, name: "launch.task.\(id)", start: origin.addingTimeInterval(start / 1000),
                        end: origin.addingTimeInterval(end / 1000), attributes: attributes)
        }
        let timeline = LaunchTaskTimeline(spans: [
            span("config", start: 0, end: 10, ["launch.task.worker": "pool-1", "launch.task.run_ms": 9.5, "launch.task.start_offset_ms": 1]),
            span("db", start: 10, end: 40, ["launch.task.lane": "serial:storage", "launch.task.dependencies": "config",
                                             "launch.task.worker": "pool-2", "launch.task.ready_offset_ms": 10.5]),
            span("later", start: 40, end: 50, ["launch.task.phase": "afterFirstFrame", "launch.task.outcome": "failed"]),
            SpanPayload(traceId: "t", spanId: "root", name: "launch", start: origin, end: origin.addingTimeInterval(0.05)),
        ])
        #expect(timeline.tasks.map(\.id) == ["config", "db", "later"])
        let config = timeline.tasks[0], db = timeline.tasks[1], later = timeline.tasks[2]
        #expect(config.startMs == 1 && config.runMs == 9.5 && config.worker == "pool-1")
        #expect(abs(db.startMs - 10) < 0.01 && abs(db.runMs - 30) < 0.01 && db.dependencies == ["config"] && db.readyMs == 10.5)
        #expect(later.worker == "concurrent" && later.outcome == "failed" && later.phase == "afterFirstFrame")
        #expect(timeline.criticalPath == ["config", "db"])
    }

    // MARK: Distributions

    @Test("log bins are contiguous factors of √2 from the smallest value to the largest, counts kept")
    func logBins() {
        var histogram = LogHistogram()
        histogram.add(100, count: 3)
        histogram.add(110, count: 2)
        histogram.add(800, count: 1)
        histogram.add(0, count: 4)
        let bins = LogBins(histogram)
        #expect(bins.total == 10)
        #expect(bins.bins.reduce(0) { $0 + $1.count } == 10)
        #expect(bins.bins.first.map { $0.lower == 0 && $0.upper == 0 && $0.count == 4 } == true)
        let positive = Array(bins.bins.dropFirst())
        for (left, right) in zip(positive, positive.dropFirst()) { #expect(abs(left.upper - right.lower) < 1e-9) }
        for bin in positive { #expect(abs(bin.upper / bin.lower - 2.0.squareRoot()) < 1e-9) }
        // 100 and 110 fall in (90.5, 128], 800 in (724, 1024]: 7 bins from one to the other.
        #expect(positive.count == 7)
        #expect(positive.first!.lower < 100 && positive.first!.upper >= 110 && positive.first!.count == 5)
        #expect(positive.last!.lower < 800 && positive.last!.upper >= 800 && positive.last!.count == 1)
        #expect(positive.dropFirst().dropLast().allSatisfy { $0.count == 0 }, "the gap is part of the shape")
    }

    @Test("a huge range lowers the bins per doubling and then folds the smallest values into a first bin from 0")
    func logBinsBounded() {
        var histogram = LogHistogram()
        histogram.add(1e-200, count: 1)
        histogram.add(1e200, count: 1)
        histogram.add(1, count: 1)
        let bins = LogBins(histogram, maximumBins: 20)
        #expect(bins.bins.count == 20)
        #expect(bins.perDoubling == 1)
        #expect(bins.bins.first!.lower == 0 && bins.bins.first!.count == 2)
        #expect(bins.bins.reduce(0) { $0 + $1.count } == 3)
        #expect(LogBins(LogHistogram()).bins.isEmpty)
    }

    @Test("the histogram SVG carries the total and each bar's count, and marks p50 and p95")
    func histogramSVG() {
        var histogram = LogHistogram()
        for value in stride(from: 10.0, through: 1000, by: 10) { histogram.add(value) }
        let report = DistributionReport(metric: "hang.duration", dimension: nil, total: histogram.total, p50Ms: histogram.quantile(0.5),
                                        p95Ms: histogram.quantile(0.95), p99Ms: histogram.quantile(0.99), bins: LogBins(histogram).bins)
        let svg = SVGChart.histogram(report, title: "<b>")
        #expect(svg.contains("data-total=\"100\""))
        let counts = svg.components(separatedBy: "data-count=\"").dropFirst().compactMap { Int64($0.prefix { $0 != "\"" }) }
        #expect(counts == report.bins.map(\.count))
        #expect(svg.contains(">p50 ") && svg.contains(">p95 "))
        #expect(svg.contains("<title>&lt;b&gt;</title>"))
    }

    @Test("a release's phases run from mark to mark, skipping marks nobody reported")
    func launchPhases() {
        let full = LaunchPhaseStat(version: "1", launches: 3, mainMs: 300, didFinishMs: 700, firstFrameMs: 1000, fullyDrawnMs: 1400)
        #expect(full.phases.map { "\($0.name):\($0.startMs)-\($0.endMs)" }
                == ["pre-main:0.0-300.0", "main → didFinishLaunching:300.0-700.0", "→ first frame:700.0-1000.0", "→ fully drawn:1000.0-1400.0"])
        let partial = LaunchPhaseStat(version: "1", launches: 1, mainMs: nil, didFinishMs: nil, firstFrameMs: 900, fullyDrawnMs: 800)
        #expect(partial.phases.map { "\($0.startMs)-\($0.endMs)" } == ["0.0-900.0", "800.0-800.0"],
                "a median mark before the previous one never draws backwards")
    }
}
