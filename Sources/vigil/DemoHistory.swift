import Foundation
import VigilCore

/// `vigil demo --history-days N`: the past N days of a simulated app population, so that the
/// dashboard's trends have points to draw before the live scenarios add today's.
///
/// A shop app with three releases rolled out one after the other (0.8.0, then 0.9.0 a third of
/// the way in, then 1.0.0 two thirds in; each reaches most sessions in about three days).
/// 0.9.0 is the regression: slower cold launches, more hangs on `CheckoutViewController` (worst
/// on the oldest device), more crashed sessions and jankier checkout frames; 1.0.0 fixes it.
/// Traffic follows the time of day (a trough at night UTC, a peak in the evening). Each session
/// reports a launch, frame windows, requests, now and then a hang, and its `session` event;
/// every event carries the tag `simulated: true`. Hangs carry no stack (there is no binary
/// behind them to symbolicate), so they form one issue of their own.
///
/// Pure and deterministic: the same `seed`, `days` and `today` give the same events (and ids,
/// so a replay into a kept database stores nothing twice).
struct DemoHistory {
    /// Days simulated, ending with the day before `today`.
    var days: Int
    /// The generator's seed.
    var seed: UInt64
    /// Days since 1970 (UTC) of the live demo; the history covers the `days` days before it.
    var today: Int64
    /// Sessions on an average hour (the daily curve moves around it).
    var sessionsPerHour = 12.0

    /// A release of the simulated app.
    struct Release {
        var version: String
        var build: String
        /// Days after the history's first day it ships.
        var shipsAfter: Double
        var regressed: Bool
    }

    /// The releases, oldest first.
    var releases: [Release] {
        [Release(version: "0.8.0", build: "80", shipsAfter: -30, regressed: false),
         Release(version: "0.9.0", build: "90", shipsAfter: Double(days) / 3, regressed: true),
         Release(version: "1.0.0", build: "100", shipsAfter: Double(days) * 2 / 3, regressed: false)]
    }

    static let app = "com.example.shop"
    static let devices: [(model: String, os: [String], weight: Double, slowness: Double)] = [
        ("iPhone16,1", ["18.1", "18.0"], 0.30, 0.8), ("iPhone15,2", ["18.1", "17.6"], 0.25, 0.9),
        ("iPhone14,5", ["17.6", "17.5"], 0.20, 1.0), ("iPhone13,2", ["17.5", "16.7"], 0.15, 1.2),
        ("iPhone12,1", ["16.7"], 0.10, 1.5),
    ]
    static let pages = ["HomeViewController", "ProductListViewController", "ProductDetailViewController",
                        "CartViewController", "CheckoutViewController"]
    static let requests: [(method: String, template: String, median: Double)] = [
        ("GET", "https://api.shop.example/products", 180), ("GET", "https://api.shop.example/products/:id", 120),
        ("POST", "https://api.shop.example/cart/items", 220), ("POST", "https://api.shop.example/checkout/:id", 650),
    ]

    /// One simulated install: its device and OS, fixed for its life.
    private struct Install {
        var id: UUID
        var device: Int
        var os: String
    }

    /// The events of history day `index` (0 is the oldest), in time order.
    func events(day index: Int) -> [Event] {
        var random = SeededGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let installs = Self.installs(seed: seed)
        let dayNumber = today - Int64(days) + Int64(index)
        var events: [Event] = []
        for hour in 0..<24 {
            // Evening peak at 19:00 UTC, trough at 07:00: 0.25× to 1.75× the mean.
            let diurnal = 1 + 0.75 * cos(2 * Double.pi * Double(hour - 19) / 24)
            let sessions = Int((sessionsPerHour * diurnal + random.unit()).rounded(.down))
            for _ in 0..<sessions {
                let start = Date(timeIntervalSince1970: Double(dayNumber) * 86_400 + Double(hour) * 3600 + random.unit() * 3600)
                let install = installs[Int(random.next() % UInt64(installs.count))]
                let release = pickRelease(at: Double(index) + (Double(hour) + 0.5) / 24, random: &random)
                events += session(start: start, install: install, release: release, random: &random)
            }
        }
        return events
    }

    /// The newest release that has shipped takes over within three days; the rest stay on the one before.
    private func pickRelease(at day: Double, random: inout SeededGenerator) -> Release {
        for release in releases.reversed() where day >= release.shipsAfter {
            let adoption = min(0.9, (day - release.shipsAfter) / 3 * 0.9)
            if release.shipsAfter < 0 || random.chance(adoption) { return release }
        }
        return releases[0]
    }

    private static func installs(seed: UInt64) -> [Install] {
        var random = SeededGenerator(seed: seed ^ 0xD1B5_4A32_D192_ED03)
        return (0..<600).map { _ in
            var pick = random.unit()
            var device = devices.count - 1
            for (index, candidate) in devices.enumerated() {
                if pick < candidate.weight { device = index; break }
                pick -= candidate.weight
            }
            let os = devices[device].os[Int(random.next() % UInt64(devices[device].os.count))]
            return Install(id: random.uuid(), device: device, os: os)
        }
    }

    private func session(start: Date, install: Install, release: Release, random: inout SeededGenerator) -> [Event] {
        let device = Self.devices[install.device]
        let sessionID = random.uuid()
        let app = AppInfo(id: Self.app, version: release.version, build: release.build)
        let info = DeviceInfo(model: device.model, os: "iOS", osVersion: install.os, arch: "arm64")
        let network = random.chance(0.7) ? "wifi" : "cellular"
        var events: [Event] = []
        func add(_ offset: Double, page: String?, _ payload: EventPayload) {
            events.append(Event(id: random.uuid(), time: start.addingTimeInterval(offset), session: sessionID, app: app, device: info,
                                context: EventContext(page: page, appState: "foreground", network: network),
                                tags: ["simulated": "true"], install: install.id, payload: payload))
        }
        // Launch: cold most of the time; 0.9.0 initializes too much before the first frame.
        let cold = random.chance(0.7)
        let ttid = random.logNormal(median: (cold ? 850 : 380) * device.slowness * (release.regressed ? 1.45 : 1), sigma: 0.3)
        add(0, page: nil, .launch(LaunchPayload(kind: cold ? .cold : .warm, processStart: start.addingTimeInterval(-ttid / 1000),
                                                preMainMs: cold ? ttid * 0.3 : nil, mainToDidFinishMs: ttid * 0.45, ttidMs: ttid,
                                                ttfdMs: ttid + random.logNormal(median: 420, sigma: 0.35))))
        var clock = ttid / 1000
        let visited = 2 + Int(random.next() % 3)
        for step in 0..<visited {
            let page = step == visited - 1 && random.chance(0.4) ? "CheckoutViewController"
                : Self.pages[Int(random.next() % UInt64(Self.pages.count - 1))]
            let checkout = page == "CheckoutViewController"
            let seconds = 5 + random.unit() * 25
            let frames = Int(seconds * 60)
            let jank = device.slowness * (checkout && release.regressed ? 3 : 1)
            let slow = Int(Double(frames) * 0.004 * jank * (0.5 + random.unit()))
            let frozen = random.chance(0.03 * jank) ? 1 : 0
            add(clock + seconds, page: page, .frames(FramesPayload(page: page, windowStart: start.addingTimeInterval(clock),
                                                                   windowEnd: start.addingTimeInterval(clock + seconds),
                                                                   frames: frames - slow * 3, fps: 60 - Double(slow * 3) / seconds,
                                                                   refreshRate: 60, dropped: slow * 3 + frozen * 42, slow: slow,
                                                                   severe: slow / 4, frozen: frozen,
                                                                   durationMs: frozen > 0 ? random.logNormal(median: 900, sigma: 0.3) : nil)))
            for _ in 0..<(1 + Int(random.next() % 2)) {
                let request = Self.requests[checkout ? 3 : Int(random.next() % 3)]
                let total = random.logNormal(median: request.median * (network == "cellular" ? 1.6 : 1), sigma: 0.45)
                let failed = random.chance(checkout && release.regressed ? 0.04 : 0.01)
                let dns = random.chance(0.3) ? random.logNormal(median: 15, sigma: 0.5) : nil
                add(clock + 1, page: page, .network(NetworkPayload(
                    method: request.method, urlTemplate: request.template, host: "api.shop.example", status: failed ? 503 : 200,
                    bytesSent: request.method == "POST" ? 900 : 300, bytesReceived: 4000 + Int64(random.next() % 40_000),
                    timings: NetworkTimings(dns: dns, connect: dns.map { $0 * 2 }, tls: dns.map { $0 * 3 }, request: 1,
                                            ttfb: total * 0.7, response: total * 0.3,
                                            total: total),
                    reusedConnection: dns == nil, protocol: "h2")))
            }
            let hangChance = checkout ? (release.regressed ? 0.25 * device.slowness : 0.04) : 0.015
            if random.chance(hangChance) {
                let duration = random.logNormal(median: checkout && release.regressed ? 1400 : 450, sigma: 0.5)
                let hangStart = start.addingTimeInterval(clock + 2)
                add(clock + 2 + duration / 1000, page: page, .hang(HangPayload(
                    start: hangStart, end: hangStart.addingTimeInterval(duration / 1000), durationMs: duration,
                    kind: duration >= 2000 ? .fullyBlocking : .nonFullyBlocking, thresholdMs: 250,
                    runLoopActivity: "beforeSources", stacks: [])))
            }
            clock += seconds
        }
        let crashed = random.chance((release.regressed ? 0.035 : 0.007) * device.slowness)
        let foreground = clock * 1000
        add(clock + 1, page: nil, .session(SessionPayload(start: start, end: start.addingTimeInterval(clock + 1),
                                                          durationMs: foreground + 1000, foregroundMs: foreground,
                                                          outcome: crashed ? .crashed : .exited)))
        return events
    }
}
