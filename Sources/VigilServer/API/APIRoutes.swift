import Foundation
import VigilCore

/// The `/api/v1/…` endpoints, `/metrics` and `/healthz` (documented in `docs/api.md`).
enum APIRoutes {
    /// Media types accepted for event batches.
    static let eventTypes: Set<String> = ["application/json", "application/x-ndjson", "application/jsonl",
                                          "application/x-jsonlines", "application/json-seq", "text/plain"]

    static func install(into router: inout HTTPRouter, context: ServerContext) {
        let options = context.options
        let eventsBody = BodyPolicy(maxBytes: options.eventsMaxBytes, maxDecodedBytes: options.eventsMaxDecodedBytes)
        let symbolsBody = BodyPolicy(maxBytes: options.symbolsMaxBytes, acceptsGzip: true,
                                     storage: .temporaryFile(directory: options.spoolDirectory))
        let reportsBody = BodyPolicy(maxBytes: options.reportsMaxBytes, maxDecodedBytes: options.reportsMaxBytes * 4)
        let configBody = BodyPolicy(maxBytes: Int64(RemoteConfig.maximumDocumentBytes), acceptsGzip: false)
        // Credentials are checked when the headers arrive, before a byte of a body is read; the
        // admin handlers check again (cheap) so that each stays safe on its own.
        let ingest = context.ingestKeyCheck
        let admin = context.adminCheck

        router.add("POST", "/api/v1/events", name: "events", body: eventsBody, authorize: ingest) { request in
            let project = try context.ingestProject(request)
            if let type = request.mediaType, !eventTypes.contains(type) {
                throw HTTPError.unsupportedMediaType(
                    "Content-Type \(type.prefix(60)) is not accepted; send application/json (an array) or application/x-ndjson (JSON lines)")
            }
            let outcome: EventIngestor.Outcome
            do {
                outcome = try context.ingestor.ingest(request.bodyData, projectID: project.id)
            } catch EventBatchError.malformedBody(let reason) {
                throw HTTPError.badRequest("the body is neither a JSON array of events nor JSON lines: \(reason)", code: "malformed_body")
            }
            context.metrics.recordIngest(outcome)
            if outcome.stored > outcome.processed { context.processor.wake() }
            return .json(outcome.json())
        }

        router.add("POST", "/api/v1/reports", name: "reports", body: reportsBody, authorize: ingest) { request in
            let project = try context.ingestProject(request)
            guard let importer = context.reportImporter else {
                throw HTTPError.unsupportedMediaType(
                    "this server cannot read crash-report files yet (.ips, .crash, MetricKit JSON arrive with the report "
                        + "readers); send Vigil crash events to /api/v1/events instead")
            }
            let events: [Event]
            do {
                events = try importer.events(fromReport: request.bodyData, contentType: request.mediaType,
                                             fileName: request.query["filename"])
            } catch {
                throw HTTPError.badRequest("the report could not be read: \(error)", code: "unreadable_report")
            }
            let outcome = try context.ingestor.ingest(try EventJSON.encodeLines(events), projectID: project.id)
            context.metrics.recordIngest(outcome)
            if outcome.stored > outcome.processed { context.processor.wake() }
            return .json(outcome.json())
        }

        router.add("GET", "/api/v1/config", name: "config", authorize: ingest) { request in
            let project = try context.ingestProject(request)
            let stored = try context.store.remoteConfig(projectID: project.id)
            let document = stored?.document ?? ConfigDocument.defaultDocument
            let etag = stored?.etag ?? ServerStore.etag(for: document)
            if let match = request.header("if-none-match"),
               match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*" }) {
                return HTTPResponse(status: 304, headers: [("ETag", etag)])
            }
            return HTTPResponse.json(Data(document.utf8)).adding("ETag", etag).adding("Cache-Control", "no-cache")
        }

        router.add("PUT", "/api/v1/config", name: "config", body: configBody, authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let document = try ConfigDocument.validate(request.bodyData).get()
            let etag = try context.store.putRemoteConfig(projectID: project.id, document: document, now: context.clock.wallNow())
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("project"); writer.string(project.name)
            writer.key("etag"); writer.string(etag)
            writer.endObject()
            return HTTPResponse.json(writer.data).adding("ETag", etag)
        }

        router.add("POST", "/api/v1/symbols", name: "symbols", body: symbolsBody, authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            guard let engine = context.symbolication else {
                throw HTTPError(status: 501, code: "symbolication_unavailable",
                                reason: "this build of vigil has no debug-file reader; symbols cannot be stored yet")
            }
            guard case .file(let url, let size) = request.body, size > 0 else {
                throw HTTPError.badRequest("the body is empty: send a dSYM (zip or tar), a Mach-O or an ELF file", code: "empty_upload")
            }
            var slices: [SymbolSlice]
            do {
                slices = try engine.slices(ofUpload: url)
                // A bare file arrives under a spool name; `?name=` tells what it is.
                if let name = request.query["name"], !name.isEmpty {
                    for index in slices.indices where slices[index].name.hasPrefix("upload-") {
                        slices[index].name = String(name.prefix(200))
                    }
                }
            } catch {
                throw HTTPError.badRequest("the upload could not be read as debug information: \(error)", code: "unreadable_symbols")
            }
            guard !slices.isEmpty else {
                throw HTTPError.badRequest("no debug information found in the upload (\(size) bytes)", code: "no_symbols")
            }
            let requeued = try context.store.storeSymbols(projectID: project.id, slices, now: context.clock.wallNow())
            for slice in slices { context.symbolTables.invalidate(projectID: project.id, debugID: slice.debugID) }
            if requeued > 0 { context.processor.wake() }
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("slices")
            writer.beginArray()
            for slice in slices {
                writer.beginObject()
                writer.key("debugId"); writer.string(slice.debugID)
                writer.key("arch"); writer.string(slice.arch)
                writer.key("kind"); writer.string(slice.kind)
                writer.key("name"); writer.string(slice.name)
                writer.key("symcacheBytes"); writer.number(slice.symcache.count)
                writer.endObject()
            }
            writer.endArray()
            writer.key("requeuedEvents"); writer.number(requeued)
            writer.endObject()
            return .json(writer.data)
        }

        router.add("GET", "/api/v1/symbols", name: "symbols", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            struct Answer: Encodable { var uploaded: [SymbolFileInfo]; var missing: [MissingSymbolInfo] }
            return .json(encoding: Answer(uploaded: try context.store.symbolFiles(projectID: project.id),
                                          missing: try context.store.missingSymbols(projectID: project.id)))
        }

        router.add("GET", "/api/v1/projects", name: "projects", authorize: admin) { request in
            try context.requireAdmin(request)
            struct Answer: Encodable { var projects: [Project] }
            return .json(encoding: Answer(projects: try context.store.projects()))
        }

        router.add("GET", "/api/v1/issues", name: "issues", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let kind = request.query["kind"].flatMap { $0.isEmpty ? nil : $0 }
            if let kind, kind != "crash", kind != "hang" { throw HTTPError.badRequest("kind: expected crash or hang") }
            let order = try request.query["sort"].map { text -> IssueOrder in
                guard let order = IssueOrder(rawValue: text) else {
                    throw HTTPError.badRequest("sort: expected one of \(IssueOrder.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return order
            } ?? .events
            let limit = request.query["limit"].flatMap(Int.init) ?? 100
            let filter = try context.dashboardFilter(request, defaultRange: .all)
            let state = request.query["state"].flatMap { $0.isEmpty ? nil : $0 }
            if let state, !ServerStore.issueStateFilters.contains(state) {
                throw HTTPError.badRequest("state: expected one of \(ServerStore.issueStateFilters.joined(separator: ", "))")
            }
            struct Answer: Encodable { var issues: [IssueSummary] }
            return .json(encoding: Answer(issues: try context.insights.issues(projectID: project.id, filter: filter,
                                                                              now: context.clock.wallNow(), kind: kind, state: state,
                                                                              order: order, limit: limit)))
        }

        router.add("GET", "/api/v1/issues/:id", name: "issue", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            guard let id = request.pathParameters["id"].flatMap(Int64.init),
                  let issue = try context.store.issue(projectID: project.id, id: id) else {
                throw HTTPError.notFound("no issue \(request.pathParameters["id"]?.prefix(40) ?? "") in project \(project.name)")
            }
            return .json(encoding: issue)
        }

        router.add("GET", "/api/v1/issues/:id/events", name: "issue-events", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            guard let id = request.pathParameters["id"].flatMap(Int64.init) else { throw HTTPError.notFound("no such issue") }
            let filter = try context.dashboardFilter(request, defaultRange: .all)
            struct Answer: Encodable { var events: [IssueEvent] }
            return .json(encoding: Answer(events: try context.store.issueEvents(
                projectID: project.id, issueID: id, limit: request.query["limit"].flatMap(Int.init) ?? 50,
                conditions: filter.eventConditions(now: context.clock.wallNow()))))
        }

        router.add("GET", "/api/v1/aggregates/:view", name: "aggregates", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let filter = try context.dashboardFilter(request, defaultRange: .all)
            let now = context.clock.wallNow()
            let insights = context.insights
            switch request.pathParameters["view"] ?? "" {
            case "hangs":
                struct Answer: Encodable { var pages: [HangPageStat] }
                return .json(encoding: Answer(pages: try insights.hangs(projectID: project.id, filter: filter, now: now)))
            case "frames":
                struct Answer: Encodable { var pages: [FramePageStat] }
                return .json(encoding: Answer(pages: try insights.frames(projectID: project.id, filter: filter, now: now)))
            case "network":
                struct Answer: Encodable { var templates: [NetworkTemplateStat] }
                return .json(encoding: Answer(templates: try insights.network(projectID: project.id, filter: filter, now: now)))
            case "launch":
                struct Answer: Encodable { var versions: [LaunchStat]; var trend: [LaunchTrendPoint] }
                let (versions, trend) = try insights.launches(projectID: project.id, filter: filter, now: now)
                return .json(encoding: Answer(versions: versions, trend: trend))
            case "overview":
                return .json(encoding: try insights.overview(projectID: project.id, filter: filter, now: now))
            default:
                throw HTTPError.notFound("no aggregate view \"\(request.pathParameters["view"]?.prefix(40) ?? "")\"; "
                                         + "expected hangs, frames, network, launch or overview")
            }
        }

        router.add("GET", "/api/v1/flamegraph", name: "flamegraph", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let filter = try context.dashboardFilter(request, defaultRange: .all)
            let now = context.clock.wallNow()
            let issue: Int64?
            if let text = request.query["issue"], !text.isEmpty {
                guard let id = Int64(text) else { throw HTTPError.badRequest("issue: expected an issue id") }
                issue = id
            } else {
                issue = nil
            }
            switch request.query["source"] ?? "hangs" {
            case "hangs":
                return .json(encoding: try context.stackProfiler.hangs(projectID: project.id, filter: filter, now: now, issueID: issue))
            case "frozen":
                guard issue == nil else { throw HTTPError.badRequest("issue: only hang flame graphs are per issue") }
                return .json(encoding: try context.stackProfiler.frozenFrames(projectID: project.id, filter: filter, now: now))
            default:
                throw HTTPError.badRequest("source: expected hangs or frozen")
            }
        }

        router.add("GET", "/api/v1/distributions/:metric", name: "distributions", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let metric = request.pathParameters["metric"] ?? ""
            guard DistributionReport.metrics.contains(metric) else {
                throw HTTPError.notFound("no distribution \"\(metric.prefix(40))\"; expected one of "
                                         + DistributionReport.metrics.joined(separator: ", "))
            }
            let filter = try context.dashboardFilter(request, defaultRange: .all)
            let dimension = request.query["dimension"].flatMap { $0.isEmpty ? nil : $0 }
            return .json(encoding: try context.insights.distribution(projectID: project.id, metric: metric, dimension: dimension,
                                                                     filter: filter, now: context.clock.wallNow()))
        }

        router.add("GET", "/api/v1/launch/waterfall", name: "launch-waterfall", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let filter = try context.dashboardFilter(request, defaultRange: .all)
            let kindText = request.query["kind"].flatMap { $0.isEmpty ? nil : $0 } ?? "cold"
            guard let kind = LaunchKind(rawValue: kindText) else {
                throw HTTPError.badRequest("kind: expected one of \(LaunchKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return .json(encoding: try context.insights.launchWaterfall(projectID: project.id, kind: kind.rawValue, filter: filter,
                                                                        now: context.clock.wallNow()))
        }

        router.add("GET", "/api/v1/compare", name: "compare", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            guard let base = request.query["base"], let target = request.query["target"], !base.isEmpty, !target.isEmpty else {
                throw HTTPError.badRequest("compare needs ?base=VERSION&target=VERSION")
            }
            let filter = try context.dashboardFilter(request, defaultRange: .all)
            struct Answer: Encodable { var base: String; var target: String; var rows: [ComparisonRow] }
            return .json(encoding: Answer(base: base, target: target,
                                          rows: try context.insights.compare(projectID: project.id, base: base, target: target,
                                                                             filter: filter, now: context.clock.wallNow())))
        }

        // O(1) in the number of stored events: the counts come from `event_counts`, kept by the
        // transactions that store and process events, never from counting `apm_event`.
        router.add("GET", "/metrics", name: "metrics", authorize: context.metricsCheck) { _ in
            let size = (try? context.store.database.sizeInBytes()).map(Double.init) ?? -1
            let counts = try? context.store.eventCounts()
            var gauges: [(name: String, help: String, value: Double)] = [
                ("vigil_database_size_bytes", "Bytes the database occupies.", size),
                ("vigil_events_pending", "Events stored and not yet processed (first time or again).",
                 Double(counts.map { $0.pending + $0.reprocess } ?? -1)),
                ("vigil_events_stored", "Events in the database, every project and state (all servers on it together).",
                 Double(counts.map { $0.pending + $0.processed + $0.reprocess } ?? -1)),
            ]
            if let sink = context.eventSink {
                let status = sink.status()
                gauges += [
                    ("vigil_clickhouse_spool_batches", "Batches in this server's spool, waiting for ClickHouse to confirm them.",
                     Double(status.spooledBatches)),
                    ("vigil_clickhouse_spool_events", "Events in those batches.", Double(status.spooledEvents)),
                    ("vigil_clickhouse_inserted_rows", "Rows the ClickHouse shards confirmed since this server started.",
                     Double(status.insertedRows)),
                    ("vigil_clickhouse_failed_inserts", "ClickHouse inserts that failed since start (each retried).",
                     Double(status.failedInserts)),
                ]
            }
            let text = context.metrics.prometheusText(gauges: gauges)
            return .text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        }

        router.add("GET", "/healthz", name: "healthz") { _ in
            do {
                let version = try context.store.schemaVersion()
                var writer = JSONWriter()
                writer.beginObject()
                writer.key("status"); writer.string("ok")
                writer.key("database"); writer.string(context.store.dialect.rawValue)
                writer.key("schema"); writer.number(version)
                writer.endObject()
                return .json(writer.data)
            } catch {
                throw HTTPError(status: 503, code: "database_unavailable", reason: "\(error)")
            }
        }
    }
}
