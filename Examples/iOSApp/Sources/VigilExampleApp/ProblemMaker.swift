#if canImport(UIKit)
import Foundation

/// Makes the problems Vigil is there to report, on purpose.
@MainActor
final class ProblemMaker {
    private let settings: ExampleSettings

    init(settings: ExampleSettings) {
        self.settings = settings
    }

    /// Keeps the main thread busy for `seconds`: a hang (Vigil's threshold is 2 s), with this
    /// function at the top of the sampled main-thread stack.
    func hangMainThread(seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        var spins = 0
        while Date() < end { spins &+= 1 }
        if spins == -1 { print(spins) }
    }

    /// Blocks the main thread for a few frames at a time (slow: ≥ 3 frames lost, severe: ≥ 7),
    /// then for 900 ms (a frozen frame, ≥ 700 ms), with the display link running in between.
    func dropAndFreezeFrames(completion: @escaping @MainActor () -> Void) {
        let blocks: [Double] = [0.06, 0.15, 0.06, 0.15, 0.9]
        Task { @MainActor in
            for seconds in blocks {
                // 300 ms of normal frames between two stalls.
                try? await Task.sleep(nanoseconds: 300_000_000)
                self.hangMainThread(seconds: seconds)
            }
            completion()
        }
    }

    /// A request that takes 2.5 s (`vigil demo`'s echo endpoint): a slow `network` event, kept
    /// whatever the sampling rate.
    func slowRequest(completion: @escaping @MainActor @Sendable (String) -> Void) {
        var components = URLComponents(url: settings.demoAPI.appendingPathComponent("echo"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "delayMs", value: "2500")]
        guard let url = components?.url else { return completion("The demo API URL is not valid") }
        let started = Date()
        URLSession.shared.dataTask(with: url) { _, response, error in
            let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
            let text = error.map { "Request failed after \(seconds) s: \($0.localizedDescription)" }
                ?? "HTTP \((response as? HTTPURLResponse)?.statusCode ?? 0) after \(seconds) s: a network event is on its way."
            Task { @MainActor in completion(text) }
        }.resume()
    }

    /// Crashes with a Swift runtime trap (index out of range). Vigil writes the report now and
    /// sends it at the next launch. Run without the debugger attached: LLDB catches the trap
    /// before any crash reporter can.
    func crash() {
        let pages = ["Demo"]
        print(pages[pages.count])
    }
}
#endif
