/// How the uploader batches, paces and retries: the `upload` object of the remote
/// configuration document, and the value the uploader runs with.
///
/// Times are in seconds, sizes in bytes. Values set in code are used as given; values that
/// arrive in a remote document are checked and clamped by ``RemoteConfig`` first
/// (``UploadPolicy/ranges`` lists the allowed ranges).
public struct UploadPolicy: Sendable, Hashable {
    /// Most events in one upload request.
    public var maxBatchEvents: Int
    /// Most uncompressed bytes of events in one upload request (a single larger event still
    /// travels alone).
    public var maxBatchBytes: Int
    /// Uncompressed request bodies above this size wait for an unmetered network (Wi-Fi,
    /// Ethernet); 0 holds every upload until the network is unmetered.
    public var meteredPayloadLimitBytes: Int
    /// Wait after the uploader starts (app launch) before the first upload, so that uploading
    /// never competes with the launch.
    public var initialDelaySeconds: Double
    /// First retry delay; each further consecutive failure doubles it.
    public var backoffBaseSeconds: Double
    /// Longest retry delay, before jitter.
    public var backoffCapSeconds: Double
    /// Each retry delay is moved by up to ± this fraction of itself at random, so that a fleet
    /// of devices does not retry in lockstep.
    public var jitterFraction: Double
    /// Tries of one batch before it is parked (kept on disk, not retried for `parkSeconds`).
    public var maxTries: Int
    /// How long a parked batch rests before the uploader offers it again.
    public var parkSeconds: Double
    /// Longest wait a server's `Retry-After` can impose.
    public var retryAfterCapSeconds: Double
    /// How often an idle uploader looks for new events.
    public var idleIntervalSeconds: Double
    /// Timeout of one HTTP request.
    public var requestTimeoutSeconds: Double

    /// The compiled defaults: 500 events or 1 MiB per batch, 1 MiB metered limit, 5 s launch
    /// delay, backoff 30 s doubling to 30 min with ±20% jitter, 5 tries, park 1 h.
    public init(maxBatchEvents: Int = 500, maxBatchBytes: Int = 1 << 20, meteredPayloadLimitBytes: Int = 1 << 20,
                initialDelaySeconds: Double = 5, backoffBaseSeconds: Double = 30, backoffCapSeconds: Double = 1800,
                jitterFraction: Double = 0.2, maxTries: Int = 5, parkSeconds: Double = 3600,
                retryAfterCapSeconds: Double = 3600, idleIntervalSeconds: Double = 15,
                requestTimeoutSeconds: Double = 60) {
        self.maxBatchEvents = maxBatchEvents
        self.maxBatchBytes = maxBatchBytes
        self.meteredPayloadLimitBytes = meteredPayloadLimitBytes
        self.initialDelaySeconds = initialDelaySeconds
        self.backoffBaseSeconds = backoffBaseSeconds
        self.backoffCapSeconds = backoffCapSeconds
        self.jitterFraction = jitterFraction
        self.maxTries = maxTries
        self.parkSeconds = parkSeconds
        self.retryAfterCapSeconds = retryAfterCapSeconds
        self.idleIntervalSeconds = idleIntervalSeconds
        self.requestTimeoutSeconds = requestTimeoutSeconds
    }

    /// The allowed range of every numeric field, by its JSON key.
    public static let ranges: [String: ClosedRange<Double>] = [
        "maxBatchEvents": 1...500,
        "maxBatchBytes": 16_384...4_194_304,
        "meteredPayloadLimitBytes": 0...67_108_864,
        "initialDelaySeconds": 0...600,
        "backoffBaseSeconds": 1...3600,
        "backoffCapSeconds": 1...86_400,
        "jitterFraction": 0...0.5,
        "maxTries": 1...20,
        "parkSeconds": 60...604_800,
        "retryAfterCapSeconds": 1...86_400,
        "idleIntervalSeconds": 1...3600,
        "requestTimeoutSeconds": 1...300,
    ]
}

extension UploadPolicy: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case maxBatchEvents, maxBatchBytes, meteredPayloadLimitBytes, initialDelaySeconds, backoffBaseSeconds,
             backoffCapSeconds, jitterFraction, maxTries, parkSeconds, retryAfterCapSeconds, idleIntervalSeconds,
             requestTimeoutSeconds
    }

    /// Reads the fields that are present (missing ones keep their defaults); a field of the
    /// wrong type throws, a number out of range is kept as read so that
    /// ``RemoteConfig/validationIssues()`` can report it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var policy = UploadPolicy()
        func integer(_ key: CodingKeys, _ value: inout Int) throws {
            if let read = try RemoteConfigNumber.integer(container, key) { value = read }
        }
        func real(_ key: CodingKeys, _ value: inout Double) throws {
            if let read = try RemoteConfigNumber.real(container, key) { value = read }
        }
        try integer(.maxBatchEvents, &policy.maxBatchEvents)
        try integer(.maxBatchBytes, &policy.maxBatchBytes)
        try integer(.meteredPayloadLimitBytes, &policy.meteredPayloadLimitBytes)
        try real(.initialDelaySeconds, &policy.initialDelaySeconds)
        try real(.backoffBaseSeconds, &policy.backoffBaseSeconds)
        try real(.backoffCapSeconds, &policy.backoffCapSeconds)
        try real(.jitterFraction, &policy.jitterFraction)
        try integer(.maxTries, &policy.maxTries)
        try real(.parkSeconds, &policy.parkSeconds)
        try real(.retryAfterCapSeconds, &policy.retryAfterCapSeconds)
        try real(.idleIntervalSeconds, &policy.idleIntervalSeconds)
        try real(.requestTimeoutSeconds, &policy.requestTimeoutSeconds)
        self = policy
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(maxBatchEvents, forKey: .maxBatchEvents)
        try container.encode(maxBatchBytes, forKey: .maxBatchBytes)
        try container.encode(meteredPayloadLimitBytes, forKey: .meteredPayloadLimitBytes)
        try container.encode(initialDelaySeconds, forKey: .initialDelaySeconds)
        try container.encode(backoffBaseSeconds, forKey: .backoffBaseSeconds)
        try container.encode(backoffCapSeconds, forKey: .backoffCapSeconds)
        try container.encode(jitterFraction, forKey: .jitterFraction)
        try container.encode(maxTries, forKey: .maxTries)
        try container.encode(parkSeconds, forKey: .parkSeconds)
        try container.encode(retryAfterCapSeconds, forKey: .retryAfterCapSeconds)
        try container.encode(idleIntervalSeconds, forKey: .idleIntervalSeconds)
        try container.encode(requestTimeoutSeconds, forKey: .requestTimeoutSeconds)
    }
}

extension UploadPolicy {
    /// Every field outside its range in ``ranges`` (plus a cap below the base delay), with
    /// key paths under `prefix`.
    func validationIssues(prefix: String) -> [RemoteConfigError] {
        var issues: [RemoteConfigError] = []
        for (key, value) in numericFields {
            guard let range = UploadPolicy.ranges[key] else { continue }
            if !(range.contains(value)) {
                issues.append(RemoteConfigError(.outOfRange, field: prefix + key,
                                                reason: "\(value) is outside \(range.lowerBound)...\(range.upperBound)"))
            }
        }
        if backoffCapSeconds < backoffBaseSeconds {
            issues.append(RemoteConfigError(.outOfRange, field: prefix + "backoffCapSeconds",
                                            reason: "\(backoffCapSeconds) is below backoffBaseSeconds (\(backoffBaseSeconds))"))
        }
        return issues
    }

    /// Every field moved into its range, and the cap raised to at least the base delay.
    func clamped() -> UploadPolicy {
        func clamp(_ key: String, _ value: Double) -> Double {
            guard let range = UploadPolicy.ranges[key] else { return value }
            return min(max(value, range.lowerBound), range.upperBound)
        }
        func clamp(_ key: String, _ value: Int) -> Int { Int(clamp(key, Double(value))) }
        var policy = self
        policy.maxBatchEvents = clamp("maxBatchEvents", maxBatchEvents)
        policy.maxBatchBytes = clamp("maxBatchBytes", maxBatchBytes)
        policy.meteredPayloadLimitBytes = clamp("meteredPayloadLimitBytes", meteredPayloadLimitBytes)
        policy.initialDelaySeconds = clamp("initialDelaySeconds", initialDelaySeconds)
        policy.backoffBaseSeconds = clamp("backoffBaseSeconds", backoffBaseSeconds)
        policy.backoffCapSeconds = max(clamp("backoffCapSeconds", backoffCapSeconds), policy.backoffBaseSeconds)
        policy.jitterFraction = clamp("jitterFraction", jitterFraction)
        policy.maxTries = clamp("maxTries", maxTries)
        policy.parkSeconds = clamp("parkSeconds", parkSeconds)
        policy.retryAfterCapSeconds = clamp("retryAfterCapSeconds", retryAfterCapSeconds)
        policy.idleIntervalSeconds = clamp("idleIntervalSeconds", idleIntervalSeconds)
        policy.requestTimeoutSeconds = clamp("requestTimeoutSeconds", requestTimeoutSeconds)
        return policy
    }

    private var numericFields: [(String, Double)] {
        [("maxBatchEvents", Double(maxBatchEvents)), ("maxBatchBytes", Double(maxBatchBytes)),
         ("meteredPayloadLimitBytes", Double(meteredPayloadLimitBytes)), ("initialDelaySeconds", initialDelaySeconds),
         ("backoffBaseSeconds", backoffBaseSeconds), ("backoffCapSeconds", backoffCapSeconds),
         ("jitterFraction", jitterFraction), ("maxTries", Double(maxTries)), ("parkSeconds", parkSeconds),
         ("retryAfterCapSeconds", retryAfterCapSeconds), ("idleIntervalSeconds", idleIntervalSeconds),
         ("requestTimeoutSeconds", requestTimeoutSeconds)]
    }
}
