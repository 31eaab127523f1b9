/// What an ``EventUploader`` did: requests, outcomes and every event it gave up on, by cause.
public struct UploaderStatistics: Sendable, Hashable {
    /// Upload requests sent.
    public var requests = 0
    /// Requests answered with a readable `200`.
    public var acknowledgedRequests = 0
    /// Events the server accepted (deleted from the store).
    public var eventsAccepted = 0
    /// Events the server rejected (deleted from the store; will never be accepted).
    public var eventsRejected = 0
    /// Rejections by reason (at most 32 distinct reasons kept; the rest under `other`).
    public var rejectionReasons: [String: Int] = [:]
    /// Events in acknowledged requests that the answer did not mention (kept for a retry).
    public var eventsNotMentioned = 0
    /// Acknowledgements naming ids that were not in the batch.
    public var unknownAcknowledgements = 0
    /// Failed attempts by cause.
    public var retries: [UploadDisposition.RetryCause: Int] = [:]
    /// Batches dropped on `400`/`415`.
    public var droppedBatches = 0
    /// Events in those batches.
    public var droppedEvents = 0
    /// Single events dropped because even alone they were too large (`413`).
    public var droppedTooLarge = 0
    /// Records in the store that were not a JSON object with an id (deleted, never sent).
    public var droppedUnreadable = 0
    /// Times a `413` made the uploader halve its batch size.
    public var splits = 0
    /// Batches parked after their last try.
    public var parkedBatches = 0
    /// Times the uploader found only events too large for the metered network.
    public var heldForMeteredNetwork = 0
    /// Times the uploader stopped because the app went to the background.
    public var pausedInBackground = 0
    /// Uncompressed bytes of the request bodies sent.
    public var bodyBytes = 0
    /// Bytes actually sent (gzip).
    public var compressedBytes = 0
    /// Delays the uploader waited after failures, in seconds (the last 64).
    public var recentDelays: [Double] = []

    /// Responses that were not usable: empty bodies, HTML pages, wrong JSON.
    public var malformedResponses: Int { retries[.malformedResponse] ?? 0 }
}
