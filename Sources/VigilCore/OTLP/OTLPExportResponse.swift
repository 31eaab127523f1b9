/// The JSON answer to an OTLP export (`ExportTraceServiceResponse` / `ExportLogsServiceResponse`):
/// empty on full success, a `partialSuccess` with the count rejected and why otherwise.
public struct OTLPExportResponse: Codable, Sendable, Hashable {
    /// Present when part of the request was refused.
    public var partialSuccess: PartialSuccess?

    /// What was refused.
    public struct PartialSuccess: Codable, Sendable, Hashable {
        /// Spans refused (traces responses).
        public var rejectedSpans: OTLPInt64?
        /// Log records refused (logs responses).
        public var rejectedLogRecords: OTLPInt64?
        /// Why, for a person reading collector logs.
        public var errorMessage: String?

        /// A partial success with the counts refused and why.
        public init(rejectedSpans: Int64? = nil, rejectedLogRecords: Int64? = nil, errorMessage: String? = nil) {
            self.rejectedSpans = rejectedSpans.map { OTLPInt64($0) }
            self.rejectedLogRecords = rejectedLogRecords.map { OTLPInt64($0) }
            self.errorMessage = errorMessage
        }
    }

    /// A response; nil `partialSuccess` means everything was accepted.
    public init(partialSuccess: PartialSuccess? = nil) {
        self.partialSuccess = partialSuccess
    }
}
