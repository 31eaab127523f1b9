import Foundation
import VigilCore

/// Builds the span of one launch task (named `launch.task.<id>`, attributes per
/// ``LaunchSpanAttribute``), so that the runner's measured spans and the spans of a simulated
/// launch (``LaunchSimulation/taskSpans(plan:traceId:rootSpanId:start:spanId:)``) have one shape.
enum LaunchTaskSpan {
    /// The span of the task `spec`, as `record` saw it, with wall times `start` and `end`.
    static func make(spec: LaunchTaskSpec, record: LaunchTaskRecord, cores: Int, traceId: String, spanId: String,
                     rootSpanId: String, start: Date, end: Date) -> SpanPayload {
        var attributes: [String: AttributeValue] = [
            LaunchSpanAttribute.taskId: .string(spec.id),
            LaunchSpanAttribute.lane: .string(spec.lane.description),
            LaunchSpanAttribute.phase: .string(spec.phase.rawValue),
            LaunchSpanAttribute.priority: .int(Int64(spec.priority)),
            LaunchSpanAttribute.dependencies: .string(spec.dependencies.joined(separator: ",")),
            LaunchSpanAttribute.suspends: .bool(spec.suspends),
            LaunchSpanAttribute.outcome: .string(record.state.label),
            LaunchSpanAttribute.cores: .int(Int64(cores)),
        ]
        if let timeout = spec.timeoutMs { attributes[LaunchSpanAttribute.timeoutMs] = .double(timeout) }
        if let value = record.readyMs { attributes[LaunchSpanAttribute.readyOffsetMs] = .double(value) }
        if let value = record.startMs { attributes[LaunchSpanAttribute.startOffsetMs] = .double(value) }
        if let value = record.waitMs { attributes[LaunchSpanAttribute.waitMs] = .double(value) }
        if let value = record.runMs { attributes[LaunchSpanAttribute.runMs] = .double(value) }
        if let value = record.worker { attributes[LaunchSpanAttribute.worker] = .string(value) }
        if let value = record.ranOnMainThread { attributes[LaunchSpanAttribute.mainThread] = .bool(value) }
        var status = SpanStatus.ok
        var message: String?
        switch record.state {
        case .failed(let error):
            status = .error
            message = error
        case .timedOut:
            status = .error
            message = record.state.description
        case .skipped(_, let reason):
            status = .unset
            attributes[LaunchSpanAttribute.skipReason] = .string(reason)
        default:
            break
        }
        return SpanPayload(traceId: traceId, spanId: spanId, parentSpanId: rootSpanId,
                           name: LaunchSpanAttribute.taskSpanPrefix + spec.id, kind: .internal,
                           start: start, end: end, status: status, statusMessage: message, attributes: attributes)
    }
}
