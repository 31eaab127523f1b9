import Foundation

/// The per-project remote configuration document that `GET /api/v1/config` serves and
/// `PUT /api/v1/config` replaces: a global kill switch, per-module switches, sampling rates
/// per event type, the hang threshold and the upload policy.
///
/// One type serves both sides. The server reads a `PUT` body with ``parse(_:)`` and refuses
/// it when ``validationIssues()`` is not empty; the SDK reads a fetched or cached document
/// with ``decodeForSDK(_:)``, which clamps out-of-range values and falls back to the compiled
/// defaults (``RemoteConfig/init()``) when the document is unreadable. Missing fields keep
/// their defaults and unknown fields are ignored, so old and new SDKs read each other's
/// documents.
///
/// ```json
/// {"schema": 1, "enabled": true,
///  "modules": {"hangs": true, "frames": false},
///  "sampling": {"network": 0.25, "frames": 0.5},
///  "hangThresholdMs": 2000, "refreshSeconds": 3600,
///  "upload": {"maxBatchEvents": 500, "backoffBaseSeconds": 30}}
/// ```
public struct RemoteConfig: Sendable, Hashable {
    /// The document version this library writes.
    public static let currentSchema = 1
    /// Largest document accepted, in bytes.
    public static let maximumDocumentBytes = 64 * 1024
    /// Allowed range of ``hangThresholdMs`` (the detector's own minimum is 100 ms; it also
    /// keeps the threshold below its fatal threshold).
    public static let hangThresholdRange: ClosedRange<Double> = 100...60_000
    /// Allowed range of ``refreshSeconds``.
    public static let refreshRange: ClosedRange<Double> = 60...604_800
    /// Allowed range of every sampling rate.
    public static let samplingRange: ClosedRange<Double> = 0...1

    /// Document version (1 or later; newer versions are read for the fields this one knows).
    public var schema: Int
    /// The global kill switch: `false` turns the whole SDK off (nothing collected or uploaded).
    public var enabled: Bool
    /// Per-module switches; a module that is absent is on.
    public var modules: [RemoteConfigModule: Bool]
    /// Fraction of events of each type to keep, 0...1; a type that is absent keeps all.
    public var sampling: [EventType: Double]
    /// Main-thread hang threshold in milliseconds, applied from the next start; `nil` keeps
    /// the app's own setting (the hang detector's default is 2000 ms).
    public var hangThresholdMs: Double?
    /// How often the SDK asks for a new document, in seconds.
    public var refreshSeconds: Double
    /// Batching, pacing and retries of the uploader.
    public var upload: UploadPolicy

    /// The compiled defaults: everything on, nothing sampled out, the app's own hang
    /// threshold, refresh hourly, the default ``UploadPolicy``.
    public init(enabled: Bool = true, modules: [RemoteConfigModule: Bool] = [:], sampling: [EventType: Double] = [:],
                hangThresholdMs: Double? = nil, refreshSeconds: Double = 3600, upload: UploadPolicy = UploadPolicy()) {
        self.schema = RemoteConfig.currentSchema
        self.enabled = enabled
        self.modules = modules
        self.sampling = sampling
        self.hangThresholdMs = hangThresholdMs
        self.refreshSeconds = refreshSeconds
        self.upload = upload
    }

    /// Whether `module` may run: the kill switch is off and its own switch is on.
    public func isEnabled(_ module: RemoteConfigModule) -> Bool {
        enabled && (modules[module] ?? true)
    }

    /// The fraction of events of `type` to keep (1 when the document does not say).
    public func samplingRate(for type: EventType) -> Double {
        sampling[type] ?? 1
    }

    /// Reads a document exactly as written: types are checked, values are not (see
    /// ``validationIssues()``).
    ///
    /// Throws ``RemoteConfigError`` naming the field for a body over
    /// ``maximumDocumentBytes``, a body that is not a JSON object, a field of the wrong type
    /// or a `schema` below 1. Cost: one JSON parse of at most 64 KiB.
    public static func parse(_ data: Data) throws(RemoteConfigError) -> RemoteConfig {
        guard data.count <= maximumDocumentBytes else {
            throw RemoteConfigError(.tooLarge, field: "the document",
                                    reason: "\(data.count) bytes is over the \(maximumDocumentBytes)-byte limit")
        }
        do {
            return try JSONDecoder().decode(RemoteConfig.self, from: data)
        } catch let error as DecodingError {
            throw RemoteConfigError(decoding: error)
        } catch {
            throw RemoteConfigError(.malformed, field: "the document", reason: String(describing: error))
        }
    }

    /// What the SDK runs with given a fetched or cached body: the document with every value
    /// clamped into range, and the problems found; the compiled defaults when the body is
    /// unreadable (then `issues` holds the one error that refused it).
    public static func decodeForSDK(_ data: Data) -> (config: RemoteConfig, issues: [RemoteConfigError]) {
        do {
            let document = try parse(data)
            return (document.clamped(), document.validationIssues())
        } catch {
            return (RemoteConfig(), [error])
        }
    }

    /// The document as compact JSON with sorted keys (what the SDK caches and the server
    /// serves).
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Every field is a plain number, string or boolean: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}

extension RemoteConfig: Codable {
    enum CodingKeys: String, CodingKey {
        case schema, enabled, modules, sampling, hangThresholdMs, refreshSeconds, upload
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var config = RemoteConfig()
        if let schema = try RemoteConfigNumber.integer(container, .schema) {
            guard schema >= 1 else {
                throw DecodingError.dataCorruptedError(forKey: .schema, in: container,
                                                       debugDescription: "schema must be 1 or later, got \(schema)")
            }
            config.schema = schema
        }
        config.enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        if let modules = try container.decodeIfPresent([String: Bool].self, forKey: .modules) {
            // Unknown module names come from newer servers: ignored, like unknown fields.
            for (name, on) in modules {
                if let module = RemoteConfigModule(rawValue: name) { config.modules[module] = on }
            }
        }
        if let sampling = try container.decodeIfPresent([String: Double].self, forKey: .sampling) {
            for (name, rate) in sampling {
                guard rate.isFinite else {
                    throw DecodingError.dataCorruptedError(forKey: .sampling, in: container,
                                                           debugDescription: "sampling.\(name) is not a finite number")
                }
                if let type = EventType(rawValue: name) { config.sampling[type] = rate }
            }
        }
        if let threshold = try RemoteConfigNumber.real(container, .hangThresholdMs) { config.hangThresholdMs = threshold }
        if let refresh = try RemoteConfigNumber.real(container, .refreshSeconds) { config.refreshSeconds = refresh }
        config.upload = try container.decodeIfPresent(UploadPolicy.self, forKey: .upload) ?? UploadPolicy()
        self = config
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schema, forKey: .schema)
        try container.encode(enabled, forKey: .enabled)
        try container.encode(Dictionary(uniqueKeysWithValues: modules.map { ($0.key.rawValue, $0.value) }), forKey: .modules)
        try container.encode(Dictionary(uniqueKeysWithValues: sampling.map { ($0.key.rawValue, $0.value) }), forKey: .sampling)
        try container.encodeIfPresent(hangThresholdMs, forKey: .hangThresholdMs)
        try container.encode(refreshSeconds, forKey: .refreshSeconds)
        try container.encode(upload, forKey: .upload)
    }
}

extension RemoteConfig {
    /// Every value outside its allowed range, each with its key path and the range. The
    /// server refuses a `PUT` with any; the SDK clamps them (``clamped()``).
    public func validationIssues() -> [RemoteConfigError] {
        var issues: [RemoteConfigError] = []
        func check(_ field: String, _ value: Double, _ range: ClosedRange<Double>) {
            if !range.contains(value) {
                issues.append(RemoteConfigError(.outOfRange, field: field,
                                                reason: "\(value) is outside \(range.lowerBound)...\(range.upperBound)"))
            }
        }
        if let hangThresholdMs { check("hangThresholdMs", hangThresholdMs, RemoteConfig.hangThresholdRange) }
        check("refreshSeconds", refreshSeconds, RemoteConfig.refreshRange)
        for type in EventType.allCases {
            if let rate = sampling[type] { check("sampling.\(type.rawValue)", rate, RemoteConfig.samplingRange) }
        }
        issues += upload.validationIssues(prefix: "upload.")
        return issues
    }

    /// The document with every value moved into its allowed range.
    public func clamped() -> RemoteConfig {
        func clamp(_ value: Double, _ range: ClosedRange<Double>) -> Double {
            min(max(value, range.lowerBound), range.upperBound)
        }
        var config = self
        config.hangThresholdMs = hangThresholdMs.map { clamp($0, RemoteConfig.hangThresholdRange) }
        config.refreshSeconds = clamp(refreshSeconds, RemoteConfig.refreshRange)
        config.sampling = sampling.mapValues { clamp($0, RemoteConfig.samplingRange) }
        config.upload = upload.clamped()
        return config
    }
}

extension RemoteConfigError {
    /// The decoding error as a config error naming the field.
    init(decoding error: DecodingError) {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the document" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .typeMismatch(let type, let context):
            let kind: Kind = context.codingPath.isEmpty ? .malformed : .wrongType
            self.init(kind, field: path(context.codingPath), reason: "expected \(type)"
                      + (context.debugDescription.isEmpty ? "" : " (\(context.debugDescription.prefix(80)))"))
        case .valueNotFound(let type, let context):
            let kind: Kind = context.codingPath.isEmpty ? .malformed : .wrongType
            self.init(kind, field: path(context.codingPath), reason: "expected \(type), got null")
        case .keyNotFound(let key, let context):
            self.init(.wrongType, field: path(context.codingPath + [key]), reason: "missing required field")
        case .dataCorrupted(let context):
            let kind: Kind = context.codingPath.isEmpty ? .malformed : .wrongType
            self.init(kind, field: path(context.codingPath), reason: String(context.debugDescription.prefix(160)))
        @unknown default:
            self.init(.malformed, field: "the document", reason: String(describing: error))
        }
    }
}
