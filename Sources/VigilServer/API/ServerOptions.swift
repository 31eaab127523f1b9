import Foundation

/// Everything `vigil serve` can be told.
public struct ServerOptions: Sendable {
    /// Where the data lives.
    public var database: DatabaseLocation
    /// Bind address, port and threads.
    public var http = HTTPServerConfiguration()
    /// The admin token; nil: use the one stored at first start, or make and print one.
    public var adminToken: String?
    /// The token `GET /metrics` needs (as `Authorization: Bearer`; the admin token also works);
    /// nil: the metrics are open to whoever reaches the port. Kept only as its SHA-256.
    public var metricsToken: String?
    /// Largest `POST events` body as sent, in bytes (default 5 MB).
    public var eventsMaxBytes: Int64 = 5_000_000
    /// Largest `POST events` body after gzip is undone, in bytes (default 50 MB).
    public var eventsMaxDecodedBytes: Int64 = 50_000_000
    /// Largest `POST symbols` body, in bytes (default 2 GB).
    public var symbolsMaxBytes: Int64 = 2_000_000_000
    /// Largest `POST reports` body, in bytes (default 10 MB).
    public var reportsMaxBytes: Int64 = 10_000_000
    /// Requests per second allowed per ingest key (0 disables the limit).
    public var rateLimitPerSecond: Double = 500
    /// Requests allowed at once per ingest key.
    public var rateLimitBurst: Double = 1000
    /// Processing worker threads (0: process nothing; another server does).
    public var workers = 2
    /// Whether a server with workers processes the events of `POST events` as it stores them
    /// (one write per event, no wait for a worker; see ``EventProcessor/commitAnalyzed(_:)``).
    /// Off: they are stored waiting and the workers claim them.
    public var processAtIngest = true
    /// Database connections (PostgreSQL) or reader connections ×2 (SQLite).
    public var connections = 12
    /// Where large uploads are spooled while they arrive.
    public var spoolDirectory: String
    /// The project created at first start and used when a request names none.
    public var defaultProject = "default"
    /// The ClickHouse cluster events also go to, and roll-ups are read from (`--events`); nil:
    /// the main database's roll-up tables only.
    public var events: ClickHouseLocation?
    /// Where batches wait until ClickHouse confirms them (`--events-spool`).
    public var eventsSpoolDirectory = ".vigil/events-spool"
    /// Days of raw events to keep (by the events' own time); nil keeps them forever. Roll-ups
    /// and issues are kept whatever this says (``RetentionPruner``).
    public var retentionDays: Double?
    /// Days of finished alerts (delivered, failed, dropped) and delivery-log rows to keep; nil
    /// keeps ``retentionDays`` of them (and everything when that is nil too).
    public var alertRetentionDays: Double?
    /// Rows retention deletes per transaction (`--retention-batch`).
    public var retentionBatchRows = 200
    /// Seconds retention waits between two batches, at least (see ``RetentionPruner``).
    public var retentionPauseSeconds = 0.05
    /// How many times a batch's own time retention waits after it, at least
    /// (`--retention-pause-factor`; see ``RetentionPruner``).
    public var retentionPauseFactor = RetentionPruner.busyShare
    /// Which decoder reads event bodies (the Foundation one only for comparisons).
    public var decoder: EventIngestor.Decoder = .tape

    /// Whether this server evaluates alert rules and delivers alerts in the background (several
    /// servers on one database may all do it: the database arbitrates).
    public var alertWorkers = true
    /// Seconds between evaluations of the threshold alert rules (default 15).
    public var alertIntervalSeconds: Double = 15
    /// Seconds between looks at the alert outbox for due deliveries (default 1).
    public var alertPollSeconds: Double = 1
    /// When failed webhook deliveries are tried again.
    public var alertRetry = AlertRetrySchedule()
    /// Seconds a webhook receiver has to answer (default 10).
    public var alertTimeoutSeconds: Double = 10

    /// Options with defaults for `database`; uploads spool under the system's temporary directory.
    public init(database: DatabaseLocation, spoolDirectory: String? = nil) {
        self.database = database
        self.spoolDirectory = spoolDirectory
            ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("vigil-spool").path
    }
}
