#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import VigilCore

/// The `URLProtocol` that records the requests of an instrumented configuration on Linux
/// (FoundationNetworking delivers no task metrics).
///
/// Data tasks are sent again through the slot's forwarding session (a copy of the app's
/// configuration) so that the recorder sees the response's arrival and every byte, and can add
/// a `traceparent`; upload and download tasks, whose bodies FoundationNetworking keeps inside
/// the task, are handed to FoundationNetworking's own HTTP protocol with an observing client.
/// Either way the app's session gets the same response, body and error it would have got.
///
/// Each slot has a subclass (``RecordingURLProtocolSlot``); this class is never registered.
class RecordingURLProtocol: URLProtocol {
    /// The slot of this protocol class.
    class var slotIndex: Int { -1 }

    override class func canInit(with request: URLRequest) -> Bool {
        RecorderSlots.slot(slotIndex)?.accepts(request) ?? false
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override class func requestIsCacheEquivalent(_ first: URLRequest, to second: URLRequest) -> Bool {
        first == second
    }

    /// The forwarded exchange in flight; touched only on the slot's queue.
    private var exchange: ForwardedExchange?
    /// The native protocol path of upload and download tasks; touched on the task's queue.
    private var passthrough: NativeProtocolPassthrough?

    override func startLoading() {
        guard let slot = RecorderSlots.slot(Self.slotIndex) else { return }
        let instant = slot.recorder.clock.monotonicNow()
        let start = slot.recorder.clock.wallNow()
        if let task, task is URLSessionUploadTask || task is URLSessionDownloadTask {
            if passthrough == nil, let native = slot.nativeProtocolClass(for: request) {
                passthrough = NativeProtocolPassthrough(owner: self, task: task, nativeClass: native, slot: slot)
            }
            passthrough?.start(at: instant, wall: start)
            return
        }
        let request = self.request
        let client = self.client
        // URLProtocol is not Sendable; from here on this instance is touched only on the slot's
        // queue (and the session's, which no longer reads the exchange).
        nonisolated(unsafe) let owner = self
        slot.queue.async {
            let exchange = ForwardedExchange(owner: owner, client: client, slot: slot, request: request,
                                             startInstant: instant, start: start)
            owner.exchange = exchange
            exchange.begin()
        }
    }

    override func stopLoading() {
        if let passthrough {
            passthrough.stop()
            return
        }
        guard let slot = RecorderSlots.slot(Self.slotIndex) else { return }
        let cancelled = task?.state != .suspended
        nonisolated(unsafe) let owner = self
        slot.queue.async {
            owner.exchange?.stop(cancelled: cancelled)
            owner.exchange = nil
        }
    }

    /// Called by the exchange when it ends (on the slot's queue).
    func exchangeEnded(_ ended: ForwardedExchange) {
        if exchange === ended { exchange = nil }
    }
}
#endif
