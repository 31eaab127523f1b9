import Foundation

/// What the uploader does with a batch given the server's answer, following the table in
/// `docs/api.md`. Pure: the same answer always gives the same disposition.
public enum UploadDisposition: Sendable, Hashable {
    /// `200` with a readable body: delete what it lists, keep the rest.
    case acknowledged(IngestResponse)
    /// `400` / `415`: the batch can never be accepted; delete it and count it.
    case drop(status: Int)
    /// `413`: the body is too large; send fewer events per request.
    case split
    /// Keep the batch and try again later; `serverDelaySeconds` is the server's
    /// `Retry-After`, `countsAsTry` says whether the attempt counts toward the batch's limit.
    case retry(RetryCause, serverDelaySeconds: Double?, countsAsTry: Bool)

    /// Why a batch is retried.
    public enum RetryCause: String, Sendable, Hashable, CaseIterable {
        case transport, timeout, rateLimited, unavailable, serverError, unauthorized, malformedResponse,
             nothingAcknowledged, unexpectedStatus
    }

    /// Classifies the outcome of one upload request. `now` anchors HTTP-date `Retry-After`s.
    public static func classify(_ result: Result<HTTPResponse, HTTPClientError>, now: Date) -> UploadDisposition {
        let response: HTTPResponse
        switch result {
        case .failure(.timedOut): return .retry(.timeout, serverDelaySeconds: nil, countsAsTry: true)
        case .failure(.transport): return .retry(.transport, serverDelaySeconds: nil, countsAsTry: true)
        case .success(let value): response = value
        }
        let retryAfter = RetryAfter.seconds(response.header("Retry-After"), now: now)
        switch response.status {
        case 200...299:
            guard let body = try? IngestResponse.parse(response.body) else {
                return .retry(.malformedResponse, serverDelaySeconds: nil, countsAsTry: true)
            }
            return .acknowledged(body)
        case 400, 415: return .drop(status: response.status)
        case 413: return .split
        case 401, 403: return .retry(.unauthorized, serverDelaySeconds: nil, countsAsTry: true)
        // A rate limit is not the batch's fault: waiting does not use up its tries.
        case 429: return .retry(.rateLimited, serverDelaySeconds: retryAfter, countsAsTry: false)
        case 503: return .retry(.unavailable, serverDelaySeconds: retryAfter, countsAsTry: true)
        case 500...599: return .retry(.serverError, serverDelaySeconds: nil, countsAsTry: true)
        default: return .retry(.unexpectedStatus, serverDelaySeconds: nil, countsAsTry: true)
        }
    }
}
