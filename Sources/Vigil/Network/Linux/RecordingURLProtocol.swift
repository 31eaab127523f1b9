#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import VigilCore

/// The `URLProtocol` that records the requests of an instrumented configuration on Linux
/// (FoundationNetworking delivers no task metrics).
///
/// Two paths, chosen per request:
/// - normally, FoundationNetworking's own HTTP protocol runs the task with an observing client
///   (``NativeProtocolPassthrough``): the app's session behaves exactly as without Vigil
///   (streaming, redirects through its delegate, authentication, uploads, downloads), and the
///   recorder sees the response (for delegate-based tasks as it arrives), the body delivered to
///   completion handlers, the error and the end;
/// - when a `traceparent` must be added (the host is listed in
///   ``NetworkConfiguration/traceContextHosts``), the request is sent again through the slot's
///   forwarding session (``ForwardedExchange``), because the native protocol always sends the
///   task's original request. That path also sees the first byte and every body byte, but
///   relays the body in one piece at the end and follows redirects without the app's delegate.
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
    /// The native protocol the passthrough watches, owned here (it owns the passthrough).
    private var native: URLProtocol?

    override func startLoading() {
        guard let slot = RecorderSlots.slot(Self.slotIndex) else { return }
        let instant = slot.recorder.clock.monotonicNow()
        let start = slot.recorder.clock.wallNow()
        if passthrough == nil, let task, !needsForwarding(task, slot: slot),
           let nativeClass = slot.nativeProtocolClass(for: request) {
            let observer = NativeProtocolPassthrough(owner: self, task: task, slot: slot)
            native = observer.makeNative(nativeClass, cachedResponse: cachedResponse)
            if native != nil { passthrough = observer }
        }
        if let passthrough {
            passthrough.start(at: instant, wall: start)
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

    /// Whether `task` must be sent again to carry a `traceparent`: a data task (upload and
    /// download bodies live inside the task, so those always take the native path) to a listed
    /// host, without a `traceparent` of the app's own.
    private func needsForwarding(_ task: URLSessionTask, slot: RecorderSlot) -> Bool {
        guard !(task is URLSessionUploadTask), !(task is URLSessionDownloadTask) else { return false }
        guard request.value(forHTTPHeaderField: TraceParent.headerName) == nil else { return false }
        return slot.recorder.propagatesTraceContext(to: request.url?.host?.lowercased() ?? "")
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
