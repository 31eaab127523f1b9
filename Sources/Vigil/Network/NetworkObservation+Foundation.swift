import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCore

extension NetworkObservation {
    /// An observation of `request` as sent, with its outcome: the adapters' common translation
    /// of Foundation's types. Headers are copied only when `recorder` records some.
    init(request: URLRequest, response: URLResponse?, error: (any Error)?, bytesSent: Int64, bytesReceived: Int64,
         start: Date, marks: NetworkTransactionMarks, traceParent: TraceParent?, recorder: NetworkRecorder) {
        let http = response as? HTTPURLResponse
        var requestHeaders: [String: String] = [:]
        if recorder.recordsRequestHeaders { requestHeaders = request.allHTTPHeaderFields ?? [:] }
        var responseHeaders: [String: String] = [:]
        if recorder.recordsResponseHeaders, let http {
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { responseHeaders[name] = value }
            }
        }
        self.init(method: request.httpMethod ?? "GET", url: request.url?.absoluteString ?? "",
                  requestHeaders: requestHeaders, responseHeaders: responseHeaders,
                  status: error == nil ? http?.statusCode : nil,
                  failure: error.map { NetworkFailure(domain: ($0 as NSError).domain, code: ($0 as NSError).code) },
                  bytesSent: bytesSent, bytesReceived: bytesReceived, start: start, marks: marks,
                  traceParent: traceParent)
    }
}
