#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking

/// The forwarding session's delegate: hands each callback to the exchange of its task.
/// Confined to the slot's queue (the session's delegate queue runs there).
final class ForwardingSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Exchanges by forwarding-task identifier.
    var exchanges: [Int: ForwardedExchange] = [:]

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        exchanges[dataTask.taskIdentifier]?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchanges[dataTask.taskIdentifier]?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        // A 401 with WWW-Authenticate: hand the response to the app's session as it arrived,
        // whose own delegate (or default handling) then answers the challenge exactly as it
        // would without Vigil; the forwarding task is cancelled, its cancellation ignored.
        exchanges[task.taskIdentifier]?.challenged()
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        exchanges[task.taskIdentifier]?.completed(error: error)
    }
}
#endif
