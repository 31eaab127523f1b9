#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import VigilCore

/// Runs a task with FoundationNetworking's own protocol and watches what it tells the session:
/// the recorder's normal path (no request is sent twice, nothing in the app's session changes).
///
/// The native protocol is created for the app's task with this object as its client; every
/// message is passed on unchanged to the client the session gave the recorder, with the native
/// protocol as sender, so the session finds the response data and the downloaded file exactly
/// where it would without Vigil. What the client hears decides what is measured: the response
/// reaches the client as it arrives only for delegate-based tasks (so time to first byte is
/// known only for them), and the body only for completion handlers and `async` calls (a data
/// delegate gets it directly; the response's Content-Length then stands in for the byte
/// count). No `traceparent` can be added here: the native protocol sends the task's original
/// request.
final class NativeProtocolPassthrough: NSObject, URLProtocolClient, @unchecked Sendable {
    private let lock = NSLock()
    private let slot: RecorderSlot
    private let request: URLRequest
    private weak var task: URLSessionTask?
    private var client: (any URLProtocolClient)?
    /// Weak: the recorder's protocol owns the native one, which owns this object as its client;
    /// a strong reference back would keep the three (and the task) alive forever.
    private weak var native: URLProtocol?
    private var startInstant = MonotonicInstant(nanoseconds: 0)
    private var start = Date()
    private var responseInstant: MonotonicInstant?
    private var response: URLResponse?
    private var bytesReceived: Int64 = 0
    private var finished = false

    /// An observer for `owner`'s task; ``makeNative(_:)`` creates the protocol it watches.
    init(owner: RecordingURLProtocol, task: URLSessionTask, slot: RecorderSlot) {
        self.slot = slot
        self.task = task
        request = owner.request
        client = owner.client
        super.init()
    }

    /// Creates the native protocol for the task with this observer as its client; the caller
    /// keeps it.
    func makeNative(_ nativeClass: URLProtocol.Type, cachedResponse: CachedURLResponse?) -> URLProtocol? {
        guard let task else { return nil }
        let made = nativeClass.init(task: task, cachedResponse: cachedResponse, client: self)
        native = made
        return made
    }

    /// Starts (or, after a suspension, resumes) the native protocol.
    func start(at instant: MonotonicInstant, wall: Date) {
        lock.lock()
        if !finished && response == nil {
            startInstant = instant
            start = wall
        }
        let native = self.native
        lock.unlock()
        native?.startLoading()
    }

    func stop() {
        let cancelled = task?.state == .canceling
        native?.stopLoading()
        if cancelled { finish(error: URLError(.cancelled)) }
    }

    // MARK: - URLProtocolClient: observe, then pass on unchanged

    func urlProtocol(_ sender: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        client?.urlProtocol(sender, wasRedirectedTo: request, redirectResponse: redirectResponse)
    }

    func urlProtocol(_ sender: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {
        client?.urlProtocol(sender, cachedResponseIsValid: cachedResponse)
    }

    func urlProtocol(_ sender: URLProtocol, didReceive response: URLResponse,
                     cacheStoragePolicy policy: URLCache.StoragePolicy) {
        lock.lock()
        if self.response == nil { responseInstant = slot.recorder.clock.monotonicNow() }
        self.response = response
        lock.unlock()
        client?.urlProtocol(sender, didReceive: response, cacheStoragePolicy: policy)
    }

    func urlProtocol(_ sender: URLProtocol, didLoad data: Data) {
        lock.lock()
        bytesReceived += Int64(data.count)
        lock.unlock()
        client?.urlProtocol(sender, didLoad: data)
    }

    // Recorded before the session hears of the end, so an app that stops Vigil in its
    // completion handler still gets the event.
    func urlProtocolDidFinishLoading(_ sender: URLProtocol) {
        finish(error: nil)
        client?.urlProtocolDidFinishLoading(sender)
    }

    func urlProtocol(_ sender: URLProtocol, didFailWithError error: any Error) {
        finish(error: error)
        client?.urlProtocol(sender, didFailWithError: error)
    }

    func urlProtocol(_ sender: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {
        client?.urlProtocol(sender, didReceive: challenge)
    }

    func urlProtocol(_ sender: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {
        client?.urlProtocol(sender, didCancel: challenge)
    }

    private func finish(error: (any Error)?) {
        let end = slot.recorder.clock.monotonicNow()
        lock.lock()
        guard !finished else { lock.unlock(); return }
        finished = true
        let task = self.task
        let response = self.response ?? task?.response
        var received = bytesReceived
        if let task, task.countOfBytesReceived > received { received = task.countOfBytesReceived }
        if received == 0, let length = response?.expectedContentLength, length > 0 { received = length }
        var sent = Int64(request.httpBody?.count ?? 0)
        if let task {
            sent = max(sent, task.countOfBytesSent, task.countOfBytesExpectedToSend)
        }
        let total = max(0, end.milliseconds(since: startInstant))
        let firstByte = responseInstant.map { max(0, $0.milliseconds(since: startInstant)) }
        let start = self.start
        lock.unlock()
        let marks = NetworkTransactionMarks(responseStart: firstByte, responseEnd: firstByte.map { _ in total }, end: total)
        slot.recorder.record(NetworkObservation(request: request, response: response, error: error, bytesSent: sent,
                                                bytesReceived: received, start: start, marks: marks,
                                                traceParent: request.value(forHTTPHeaderField: "traceparent")
                                                    .flatMap(TraceParent.init(header:)),
                                                recorder: slot.recorder))
    }
}
#endif
