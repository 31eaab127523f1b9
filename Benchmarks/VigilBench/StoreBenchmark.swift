import Foundation
import VigilCommandLine
import VigilCore
import VigilStore
import VigilTestSupport
import VigilTransport

/// `vigil-bench store`: what the store costs the app and how fast it and the uploader move
/// events. Writes `bench-results/store.json`.
///
/// - enqueue: median and p99 cost of `EventStore.enqueue` on the calling thread, against the
///   cost of encoding and writing the event synchronously (what the caller would pay without
///   the store's queue). Goal: median ≤ 2 µs.
/// - throughput: small events per second through the store (encode, frame, CRC, write,
///   fsync at the end), for `Event` values and for pre-encoded payloads. Goal ≥ 100,000/s.
/// - upload: 10,000 events through the uploader to a loopback HTTP server: time, requests,
///   uncompressed and gzip bytes and their ratio.
enum StoreBenchmark: Command {
    static let name = "store"
    static let summary = "event store enqueue cost, store throughput, upload of 10,000 events"
    static let usage = """
        usage: vigil-bench store [--out FILE] [--events N] [--samples N] [--seed S]

          --out FILE     result file (default bench-results/store.json)
          --events N     events for the throughput run (default 200000)
          --samples N    enqueue calls timed one by one (default 50000)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, valued: ["out", "events", "samples", "seed"])
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: ["out", "events", "samples", "seed"])
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let out = arguments.value("out") ?? "bench-results/store.json"
        let eventCount: Int = try arguments.number("events", default: 200_000)
        let samples: Int = try arguments.number("samples", default: 50_000)
        guard eventCount > 0, samples > 0 else { throw UsageError("--events and --samples must be positive") }

        let enqueue = try measureEnqueue(samples: samples)
        let throughput = try measureThroughput(events: eventCount)
        let upload = try measureUpload(events: 10_000)
        let result: [String: Any] = [
            "suite": "store",
            "enqueue": enqueue,
            "throughput": throughput,
            "upload": upload,
        ]
        let data = try ResultFile.write(result, to: out)
        CommandDispatcher.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
        return 0
    }

    /// A small event: a log line of about 300 bytes encoded.
    private static func smallEvent(_ index: Int, session: UUID) -> Event {
        let id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012llX", UInt64(index))) ?? UUID()
        return Event(id: id, time: Date(timeIntervalSince1970: 1_795_985_323 + Double(index) / 1000), session: session,
                     app: AppInfo(id: "com.example.shop", version: "3.2.0", build: "412"),
                     device: DeviceInfo(model: "iPhone14,2", os: "iOS", osVersion: "18.1", arch: "arm64"),
                     context: EventContext(page: "CheckoutViewController", appState: "foreground", network: "wifi"),
                     payload: .log(LogPayload(level: .info, message: "cart updated \(index)")))
    }


    private static func measureEnqueue(samples: Int) throws -> [String: Any] {
        let directory = try TemporaryDirectory(prefix: "bench-store")
        let session = UUID()
        let events = (0..<1000).map { smallEvent($0, session: session) }
        // Bursts of 500 with a flush in between: the inbox never fills, so every timed call
        // is a real enqueue, not a counted drop.
        let store = EventStore(directory: directory.url, configuration: StoreConfiguration(totalByteLimit: 1 << 30))
        _ = store.statistics()
        var enqueueTimes: [UInt64] = []
        enqueueTimes.reserveCapacity(samples)
        while enqueueTimes.count < samples {
            for index in 0..<min(500, samples - enqueueTimes.count) {
                let event = events[index % events.count]
                let start = DispatchTime.now().uptimeNanoseconds
                store.enqueue(event)
                enqueueTimes.append(DispatchTime.now().uptimeNanoseconds - start)
            }
            store.flush()
        }
        let statistics = store.statistics()
        store.close()

        // The other side: encode and append on the calling thread, one write per event.
        let file = directory.file("synchronous.log")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        let encoder = EventJSON.makeEncoder()
        var synchronousTimes: [UInt64] = []
        let synchronousSamples = min(samples, 20_000)
        synchronousTimes.reserveCapacity(synchronousSamples)
        for index in 0..<synchronousSamples {
            let start = DispatchTime.now().uptimeNanoseconds
            var line = try encoder.encode(events[index % events.count])
            line.append(0x0A)
            handle.write(line)
            synchronousTimes.append(DispatchTime.now().uptimeNanoseconds - start)
        }
        try handle.close()
        let enqueue = Distribution(enqueueTimes.map { Double($0) })
        let enqueueMedian = enqueue.median ?? 0
        let synchronousMedian = Distribution(synchronousTimes.map { Double($0) }).median ?? 0
        return [
            "calls": enqueueTimes.count,
            "median_ns": enqueueMedian,
            "p90_ns": enqueue.percentile(0.9) ?? 0,
            "p99_ns": enqueue.percentile(0.99) ?? 0,
            "goal_median_ns": 2000,
            "meets_goal": enqueueMedian <= 2000,
            "synchronous_encode_write_median_ns": synchronousMedian,
            "synchronous_over_enqueue": synchronousMedian / max(enqueueMedian, 1),
            "written": statistics.written,
            "dropped": statistics.droppedTotal,
        ]
    }

    private static func measureThroughput(events count: Int) throws -> [String: Any] {
        let session = UUID()
        let events = (0..<count).map { smallEvent($0, session: session) }
        let configuration = StoreConfiguration(totalByteLimit: 1 << 31, pendingLimit: count + 1)

        let eventDirectory = try TemporaryDirectory(prefix: "bench-store")
        let eventStore = EventStore(directory: eventDirectory.url, configuration: configuration)
        _ = eventStore.statistics()
        let eventStart = DispatchTime.now().uptimeNanoseconds
        let eventCPUStart = processCPUSeconds()
        for event in events { eventStore.enqueue(event) }
        eventStore.flush(timeoutSeconds: 600)
        let eventSeconds = Double(DispatchTime.now().uptimeNanoseconds - eventStart) / 1e9
        let eventCPUSeconds = processCPUSeconds() - eventCPUStart
        let eventStatistics = eventStore.statistics()
        eventStore.close()

        // The schema's JSON encoding alone, for the record: it bounds the `Event` path.
        let encoder = EventJSON.makeEncoder()
        let encodeStart = DispatchTime.now().uptimeNanoseconds
        let encodeCPUStart = threadCPUSeconds()
        let payloads = try events.map { try encoder.encode($0) }
        let encodeSeconds = Double(DispatchTime.now().uptimeNanoseconds - encodeStart) / 1e9
        let encodeCPUSeconds = threadCPUSeconds() - encodeCPUStart
        let writerCPUStart = threadCPUSeconds()
        var writerBytes = 0
        for event in events { writerBytes += EventJSONWriter.encode(event).count }
        let writerCPUSeconds = threadCPUSeconds() - writerCPUStart
        let averageBytes = Double(payloads.reduce(0) { $0 + $1.count }) / Double(count)
        let rawDirectory = try TemporaryDirectory(prefix: "bench-store")
        let rawStore = EventStore(directory: rawDirectory.url, configuration: configuration)
        _ = rawStore.statistics()
        let rawStart = DispatchTime.now().uptimeNanoseconds
        let rawCPUStart = processCPUSeconds()
        for payload in payloads { rawStore.enqueue(encoded: payload, priority: .low) }
        rawStore.flush(timeoutSeconds: 600)
        let rawSeconds = Double(DispatchTime.now().uptimeNanoseconds - rawStart) / 1e9
        let rawCPUSeconds = processCPUSeconds() - rawCPUStart
        let rawStatistics = rawStore.statistics()
        rawStore.close()

        let eventRate = Double(eventStatistics.written) / eventSeconds
        let rawRate = Double(rawStatistics.written) / rawSeconds
        return [
            "events": count,
            "average_event_bytes": averageBytes,
            "events_per_second": eventRate,
            "events_written": eventStatistics.written,
            "encoded_records_per_second": rawRate,
            "json_encodes_per_second_alone": Double(count) / encodeSeconds,
            "json_encodes_per_cpu_second": Double(count) / max(encodeCPUSeconds, 1e-9),
            "event_writer_encodes_per_cpu_second": Double(count) / max(writerCPUSeconds, 1e-9),
            "event_writer_bytes": writerBytes,
            "events_per_process_cpu_second": Double(eventStatistics.written) / max(eventCPUSeconds, 1e-9),
            "encoded_records_per_process_cpu_second": Double(rawStatistics.written) / max(rawCPUSeconds, 1e-9),
            "encoded_records_written": rawStatistics.written,
            "goal_per_second": 100_000,
            "events_ratio_to_goal": eventRate / 100_000,
            "encoded_ratio_to_goal": rawRate / 100_000,
            "meets_goal": eventRate >= 100_000,
            "segments": eventStatistics.segments,
        ]
    }

    private static func measureUpload(events count: Int) throws -> [String: Any] {
        let received = ReceivedIds()
        let server = try LoopbackHTTPServer { request in
            var body = request.body
            if request.headers["content-encoding"] == "gzip" {
                body = (try? Gzip.decompress(body, limit: 64 << 20)) ?? Data()
            }
            var ids: [String] = []
            for line in body.split(separator: 0x0A) {
                if let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                   let id = object["id"] as? String { ids.append(id) }
            }
            received.add(ids)
            let answer = (try? JSONSerialization.data(withJSONObject: ["accepted": ids, "rejected": [Any]()])) ?? Data()
            return .respond(status: 200, headers: ["Content-Type": "application/json"], body: answer)
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "bench-upload")
        let store = EventStore(directory: directory.url, configuration: StoreConfiguration(pendingLimit: count + 1))
        for index in 0..<count {
            let type = EventType.allCases[index % EventType.allCases.count]
            store.enqueue(SampleEvents.make(type == .crash ? .hang : type, index: index))
        }
        store.flush()
        var policy = UploadPolicy()
        policy.initialDelaySeconds = 0
        let uploader = EventUploader(store: store, endpoint: EventUploader.Endpoint(baseURL: server.baseURL, ingestKey: "bench"),
                                     http: URLSessionHTTPClient(), policy: policy, seed: 1)
        let start = DispatchTime.now().uptimeNanoseconds
        uploader.start()
        let deadline = Date().addingTimeInterval(300)
        while received.count < count || store.statistics().storedRecords > 0, Date() < deadline {
            usleep(2000)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        uploader.stop()
        let statistics = uploader.statistics()
        store.close()
        return [
            "events": count,
            "delivered": received.count,
            "seconds": seconds,
            "events_per_second": Double(received.count) / seconds,
            "requests": statistics.requests,
            "uncompressed_bytes": statistics.bodyBytes,
            "compressed_bytes": statistics.compressedBytes,
            "compression_ratio": Double(statistics.bodyBytes) / Double(max(statistics.compressedBytes, 1)),
        ]
    }
}

/// CPU time of the calling thread, in seconds: unlike wall time, it does not grow when other
/// processes share the cores.
func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// CPU time of the whole process (every thread), in seconds. On a quiet two-core machine the
/// producer and the store's queue run side by side, so events per process CPU second is a
/// conservative estimate of the throughput a quiet machine reaches in wall time.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.cpuSeconds
}

/// Distinct event ids the benchmark's server received.
private final class ReceivedIds: @unchecked Sendable {
    private let lock = NSLock()
    private var ids = Set<String>()

    func add(_ new: [String]) {
        lock.lock()
        ids.formUnion(new)
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return ids.count
    }
}
