import Foundation
import VigilCore

/// The wall-clock moments of one request as Apple's `URLSessionTaskMetrics` reports them (the
/// task interval and the last transaction's dates), in a platform-neutral form, so that their
/// translation into ``NetworkTransactionMarks`` is shared and tested on every platform.
struct TransactionTimes: Sendable, Hashable {
    /// The task interval's start: the origin of every mark.
    var taskStart: Date
    /// The task interval's end.
    var taskEnd: Date
    var domainLookupStart: Date?
    var domainLookupEnd: Date?
    var connectStart: Date?
    var connectEnd: Date?
    var secureConnectionStart: Date?
    var secureConnectionEnd: Date?
    var requestStart: Date?
    var requestEnd: Date?
    var responseStart: Date?
    var responseEnd: Date?

    /// The marks in milliseconds from ``taskStart``.
    var marks: NetworkTransactionMarks {
        func offset(_ date: Date?) -> Double? {
            date.map { $0.timeIntervalSince(taskStart) * 1000 }
        }
        return NetworkTransactionMarks(domainLookupStart: offset(domainLookupStart), domainLookupEnd: offset(domainLookupEnd),
                                       connectStart: offset(connectStart), connectEnd: offset(connectEnd),
                                       secureConnectionStart: offset(secureConnectionStart),
                                       secureConnectionEnd: offset(secureConnectionEnd),
                                       requestStart: offset(requestStart), requestEnd: offset(requestEnd),
                                       responseStart: offset(responseStart), responseEnd: offset(responseEnd),
                                       end: max(0, taskEnd.timeIntervalSince(taskStart) * 1000))
    }
}
