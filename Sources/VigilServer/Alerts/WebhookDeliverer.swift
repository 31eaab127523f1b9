import Foundation
import VigilCore
import VigilTransport

/// Delivers the alert outbox: claims due alerts (``ServerStore/claimDueAlerts(now:leaseUntil:limit:)``),
/// POSTs each body to its rule's URL, signed (``WebhookSignature``) and carrying the alert's id,
/// and records the outcome: delivered on a 2xx answer, otherwise retried after
/// ``AlertRetrySchedule``'s delay, and given up after its last attempt. Every attempt is logged.
///
/// At least once: an alert leaves the outbox only when a receiver answered 2xx; a server that
/// stops (or dies) mid-attempt leaves it claimed until the lease (twice the timeout + 5 s) ends, then any
/// server takes it again. So a receiver may see an alert twice and de-duplicates by its id.
///
/// Threading: safe to share; ``start()`` runs one background thread until ``stop()``;
/// ``deliverDue()`` may also be called directly (tests).
public final class WebhookDeliverer: Sendable {
    private let store: ServerStore
    private let client: any HTTPClient
    private let clock: any VigilClock
    private let schedule: AlertRetrySchedule
    private let timeoutSeconds: Double
    private let log: @Sendable (String) -> Void
    private let loop = BackgroundLoop(name: "vigil-alert-deliverer")

    /// The header carrying the alert's id (for de-duplication).
    public static let alertIDHeader = "Vigil-Alert-Id"
    /// The header carrying the attempt number (1 for the first).
    public static let attemptHeader = "Vigil-Delivery-Attempt"

    /// A deliverer for `store`'s outbox; each request waits at most `timeoutSeconds`.
    public init(store: ServerStore, client: any HTTPClient = URLSessionHTTPClient(), clock: any VigilClock = SystemClock(),
                schedule: AlertRetrySchedule = AlertRetrySchedule(), timeoutSeconds: Double = 10,
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.client = client
        self.clock = clock
        self.schedule = schedule
        self.timeoutSeconds = max(0.1, timeoutSeconds)
        self.log = log
    }

    /// Starts delivering, looking for due alerts every `pollSeconds` (and at ``wake()``).
    public func start(pollSeconds: Double = 1) {
        loop.start(pollSeconds: max(0.01, pollSeconds)) { [self] in
            do {
                return try deliverDue() > 0
            } catch {
                log("alert delivery failed: \(error)")
                return false
            }
        }
    }

    /// Looks for due alerts now.
    public func wake() { loop.wake() }

    /// Stops after the current round and waits for it.
    public func stop() { loop.stop() }

    /// Claims the alerts due now (up to `limit`), sends them concurrently and records each
    /// outcome; returns how many were attempted.
    @discardableResult
    public func deliverDue(limit: Int = 16) throws -> Int {
        let now = clock.wallNow()
        let claimed = try store.claimDueAlerts(now: now, leaseUntil: now.addingTimeInterval(timeoutSeconds * 2 + 5), limit: limit)
        guard !claimed.isEmpty else { return 0 }
        let group = DispatchGroup()
        for alert in claimed {
            group.enter()
            attempt(alert) { group.leave() }
        }
        group.wait()
        return claimed.count
    }

    private func attempt(_ alert: ClaimedAlert, done: @escaping @Sendable () -> Void) {
        guard let urlText = alert.url, let secret = alert.secret, let url = URL(string: urlText) else {
            // The rule was deleted after the alert fired.
            record(alert, status: nil, error: "the rule was deleted", durationMs: 0, delivered: false)
            done()
            return
        }
        let sentAt = clock.wallNow()
        let started = clock.monotonicNow()
        let timestamp = Int64(sentAt.timeIntervalSince1970.rounded(.down))
        let request = VigilTransport.HTTPRequest(method: "POST", url: url, headers: [
            "Content-Type": "application/json",
            "User-Agent": "Vigil/\(VigilVersion.string)",
            Self.alertIDHeader: alert.id,
            Self.attemptHeader: String(alert.attempt),
            WebhookSignature.header: WebhookSignature.value(body: alert.body, secret: secret, timestamp: timestamp),
        ], body: alert.body, timeoutSeconds: timeoutSeconds)
        client.send(request) { [self] result in
            let elapsed = Double(clock.monotonicNow().nanoseconds(since: started)) / 1e6
            switch result {
            case .success(let response) where (200..<300).contains(response.status):
                record(alert, status: response.status, error: nil, durationMs: elapsed, delivered: true)
            case .success(let response):
                let text = String(decoding: response.body.prefix(200), as: UTF8.self)
                record(alert, status: response.status, error: "HTTP \(response.status)" + (text.isEmpty ? "" : ": \(text)"),
                       durationMs: elapsed, delivered: false)
            case .failure(.timedOut):
                record(alert, status: nil, error: "no answer within \(timeoutSeconds) s", durationMs: elapsed, delivered: false)
            case .failure(.transport(let reason)):
                record(alert, status: nil, error: reason, durationMs: elapsed, delivered: false)
            }
            done()
        }
    }

    private func record(_ alert: ClaimedAlert, status: Int?, error: String?, durationMs: Double, delivered: Bool) {
        let now = clock.wallNow()
        let retryAt = delivered ? nil : schedule.delay(afterAttempt: alert.attempt).map { now.addingTimeInterval($0) }
        do {
            try store.recordAlertAttempt(alert, at: now, status: status, error: error, durationMs: durationMs,
                                         delivered: delivered, retryAt: retryAt)
        } catch {
            // The claim's lease ends and the alert is attempted again: at least once holds.
            log("recording alert \(alert.id)'s delivery failed: \(error)")
        }
        if !delivered, alert.url != nil, retryAt == nil {
            log("alert \(alert.id) given up after \(alert.attempt) attempts: \(error ?? "")")
        }
    }
}
