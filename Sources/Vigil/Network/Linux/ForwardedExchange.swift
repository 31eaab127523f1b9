#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import VigilCore

/// One request of an instrumented session, sent again through the slot's forwarding session
/// and relayed back to the app's session.
///
/// FoundationNetworking's protocol client keeps only the last `didLoad` chunk for completion
/// handlers (and `async` calls), so the body is relayed in one piece when the response ends;
/// the response itself is relayed the moment it arrives. Errors are relayed unchanged.
///
/// Confined to the slot's queue. Holds its protocol and forwarding task only until it
/// finishes; then every reference is dropped.
final class ForwardedExchange {
    private let slot: RecorderSlot
    private var owner: RecordingURLProtocol?
    private var client: (any URLProtocolClient)?
    private let originalRequest: URLRequest
    private let startInstant: MonotonicInstant
    private let start: Date
    private var forwardingTask: URLSessionDataTask?
    private var sentRequest: URLRequest
    private var traceParent: TraceParent?
    private var response: URLResponse?
    private var responseInstant: MonotonicInstant?
    private var body = Data()
    private var finished = false

    init(owner: RecordingURLProtocol, client: (any URLProtocolClient)?, slot: RecorderSlot, request: URLRequest,
         startInstant: MonotonicInstant, start: Date) {
        self.owner = owner
        self.client = client
        self.slot = slot
        originalRequest = request
        sentRequest = request
        self.startInstant = startInstant
        self.start = start
    }

    /// Sends the request through the forwarding session, with a `traceparent` when the
    /// recorder asks for one.
    func begin() {
        let host = originalRequest.url?.host?.lowercased() ?? ""
        if let context = slot.recorder.traceContext(host: host,
                                                    existing: originalRequest.value(forHTTPHeaderField: "traceparent")) {
            traceParent = context.parent
            if context.inject { sentRequest.setValue(context.parent.header, forHTTPHeaderField: TraceParent.headerName) }
        }
        let task = slot.session.dataTask(with: sentRequest)
        forwardingTask = task
        slot.register(self, for: task)
        task.resume()
    }

    func received(_ response: URLResponse) {
        guard !finished, let owner else { return }
        self.response = response
        responseInstant = slot.recorder.clock.monotonicNow()
        client?.urlProtocol(owner, didReceive: response, cacheStoragePolicy: .notAllowed)
    }

    func received(_ data: Data) {
        guard !finished else { return }
        body.append(data)
    }

    /// The forwarding session met an authentication challenge: the response is complete.
    func challenged() {
        finish(error: nil)
    }

    func completed(error: (any Error)?) {
        finish(error: error)
    }

    /// The app's task was cancelled (`cancelled`) or suspended: stop the forwarding task and
    /// relay nothing more; a cancellation is recorded, a suspension is not (the task starts
    /// over on resume).
    func stop(cancelled: Bool) {
        guard !finished else { return }
        let task = forwardingTask
        finished = true
        if cancelled {
            record(error: URLError(.cancelled), end: slot.recorder.clock.monotonicNow())
        }
        release()
        task?.cancel()
    }

    private func finish(error: (any Error)?) {
        guard !finished else { return }
        finished = true
        // Recorded before the app hears of the end, so an app that stops Vigil in its
        // completion handler still gets the event.
        record(error: error, end: slot.recorder.clock.monotonicNow())
        if let owner, let client {
            if let error {
                client.urlProtocol(owner, didFailWithError: error)
            } else {
                if response == nil, let made = HTTPURLResponse(url: sentRequest.url ?? URL(fileURLWithPath: "/"),
                                                               statusCode: 200, httpVersion: nil, headerFields: nil) {
                    // Every HTTP exchange delivers a response first; this only guards the
                    // client against a forwarding session that did not.
                    response = made
                    client.urlProtocol(owner, didReceive: made, cacheStoragePolicy: .notAllowed)
                }
                if !body.isEmpty { client.urlProtocol(owner, didLoad: body) }
                client.urlProtocolDidFinishLoading(owner)
            }
        }
        release()
    }

    private func record(error: (any Error)?, end: MonotonicInstant) {
        let total = max(0, end.milliseconds(since: startInstant))
        let firstByte = responseInstant.map { max(0, $0.milliseconds(since: startInstant)) }
        let marks = NetworkTransactionMarks(responseStart: firstByte, responseEnd: firstByte.map { _ in total }, end: total)
        var sent = Int64(sentRequest.httpBody?.count ?? 0)
        if let task = forwardingTask, task.countOfBytesSent > sent { sent = task.countOfBytesSent }
        let observation = NetworkObservation(request: sentRequest, response: response, error: error, bytesSent: sent,
                                             bytesReceived: Int64(body.count), start: start, marks: marks,
                                             traceParent: traceParent, recorder: slot.recorder)
        slot.recorder.record(observation)
    }

    private func release() {
        if let task = forwardingTask { slot.unregister(task) }
        owner?.exchangeEnded(self)
        owner = nil
        client = nil
        forwardingTask = nil
        body = Data()
    }
}
#endif
