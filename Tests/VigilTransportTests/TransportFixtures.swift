import Foundation
import VigilCore
import VigilStore
import VigilTestSupport
import VigilTransport

/// An ``UploadScheduler`` whose time moves only when the test says so; it moves a
/// ``TestClock`` along with it. Work runs on the test's thread inside ``advance(by:)``.
final class ManualScheduler: UploadScheduler, @unchecked Sendable {
    private struct Task {
        var due: Double
        var order: Int
        var work: @Sendable () -> Void
    }

    let clock: TestClock
    private let lock = NSLock()
    private var tasks: [Task] = []
    private var order = 0
    /// Seconds since the scheduler was made.
    private(set) var now: Double = 0

    init(clock: TestClock = TestClock()) { self.clock = clock }

    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) {
        lock.lock()
        tasks.append(Task(due: now + max(0, seconds), order: order, work: work))
        order += 1
        lock.unlock()
    }

    /// Runs everything due up to `seconds` from now, in due order, moving the clock to each
    /// task's time; then moves to the end.
    func advance(by seconds: Double) {
        let target = now + seconds
        while let task = takeNext(dueBy: target) {
            move(to: task.due)
            task.work()
        }
        move(to: target)
    }

    /// Runs what is due now (including work that work schedules for now).
    func runDue() { advance(by: 0) }

    /// Seconds from now until the next task that is not due yet, if any.
    var nextDelay: Double? {
        lock.lock()
        defer { lock.unlock() }
        return tasks.map(\.due).min().map { $0 - now }
    }

    private func takeNext(dueBy target: Double) -> Task? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = tasks.indices.filter({ tasks[$0].due <= target })
            .min(by: { (tasks[$0].due, tasks[$0].order) < (tasks[$1].due, tasks[$1].order) }) else { return nil }
        return tasks.remove(at: index)
    }

    private func move(to time: Double) {
        if time > now {
            clock.advance(byMilliseconds: (time - now) * 1000)
            now = time
        }
    }
}

/// An ``HTTPClient`` that answers from a script, synchronously, and keeps every request.
final class ScriptedHTTPClient: HTTPClient, @unchecked Sendable {
    typealias Answer = Result<HTTPResponse, HTTPClientError>
    private let lock = NSLock()
    private var answer: @Sendable (HTTPRequest) -> Answer
    private(set) var requests: [HTTPRequest] = []

    init(_ answer: @escaping @Sendable (HTTPRequest) -> Answer) { self.answer = answer }

    func setAnswer(_ answer: @escaping @Sendable (HTTPRequest) -> Answer) {
        lock.lock()
        self.answer = answer
        lock.unlock()
    }

    var requestCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return requests.count
    }

    func send(_ request: HTTPRequest, completion: @escaping @Sendable (Answer) -> Void) {
        lock.lock()
        requests.append(request)
        let answer = self.answer
        lock.unlock()
        completion(answer(request))
    }

    /// The events of an upload request (gunzipped JSON lines).
    static func events(in request: HTTPRequest) throws -> [Event] {
        var body = request.body ?? Data()
        if request.headers["Content-Encoding"] == "gzip" { body = try Gzip.decompress(body, limit: 64 << 20) }
        return try EventJSON.decodeBatch(body).map { try $0.get() }
    }

    /// A `200` accepting every event of the request.
    static func acceptAll(_ request: HTTPRequest) -> Answer {
        let ids = ((try? events(in: request)) ?? []).map(\.id.uuidString)
        return .success(json(["accepted": ids, "rejected": [Any]()]))
    }

    /// A `200` with `object` as its JSON body.
    static func json(_ object: Any, status: Int = 200, headers: [String: String] = [:]) -> HTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return HTTPResponse(status: status, headers: headers.merging(["Content-Type": "application/json"]) { $1 }, body: body)
    }
}

/// A network path the test sets.
final class ScriptedNetwork: NetworkPathProvider, @unchecked Sendable {
    private let lock = NSLock()
    private var path: NetworkPath
    private var handler: (@Sendable (NetworkPath) -> Void)?

    init(_ path: NetworkPath) { self.path = path }

    var currentPath: NetworkPath {
        lock.lock()
        defer { lock.unlock() }
        return path
    }

    func onChange(_ handler: @escaping @Sendable (NetworkPath) -> Void) {
        lock.lock()
        self.handler = handler
        lock.unlock()
    }

    func set(_ new: NetworkPath) {
        lock.lock()
        path = new
        let handler = self.handler
        lock.unlock()
        handler?(new)
    }
}

/// An app whose foreground/background state the test sets.
final class ScriptedActivity: AppActivityProvider, @unchecked Sendable {
    private let lock = NSLock()
    private var background = false
    private var handler: (@Sendable (Bool) -> Void)?
    let backgroundUploadsAvailable: Bool

    init(backgroundUploadsAvailable: Bool = false) { self.backgroundUploadsAvailable = backgroundUploadsAvailable }

    var isInBackground: Bool {
        lock.lock()
        defer { lock.unlock() }
        return background
    }

    func onChange(_ handler: @escaping @Sendable (Bool) -> Void) {
        lock.lock()
        self.handler = handler
        lock.unlock()
    }

    func set(inBackground value: Bool) {
        lock.lock()
        background = value
        let handler = self.handler
        lock.unlock()
        handler?(value)
    }
}

/// A store in a temporary directory with `count` events already written.
struct StoreFixture {
    let directory: TemporaryDirectory
    let store: EventStore
    let events: [Event]

    init(count: Int, configuration: StoreConfiguration = StoreConfiguration()) throws {
        directory = try TemporaryDirectory(prefix: "transport")
        store = EventStore(directory: directory.url, configuration: configuration, clock: TestClock())
        events = (0..<count).map { SampleEvents.make(EventType.allCases[$0 % 8] == .crash ? .log : EventType.allCases[$0 % 8], index: $0) }
        for event in events { store.enqueue(event) }
        store.flush()
    }

    var stored: Int { store.statistics().storedRecords }
}

let testEndpoint = EventUploader.Endpoint(baseURL: URL(string: "http://vigil.test")!, ingestKey: "ingest-key-1")
