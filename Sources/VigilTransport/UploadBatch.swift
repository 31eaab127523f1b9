import Foundation
import VigilStore

/// One request's worth of stored events: the JSON-lines body and the map from event ids back
/// to store records, kept across retries so a retried batch is byte-identical (the server
/// deduplicates it by id).
final class UploadBatch: @unchecked Sendable {
    /// The records sent, in body order (line `i` is `records[i]`).
    let records: [StoredRecord]
    /// Uncompressed body: one event per line.
    let body: Data
    /// Positions of each event id in `records` (an id enqueued twice appears twice).
    let positions: [UUID: [Int]]
    /// Attempts made so far.
    var tries = 0

    private init(records: [StoredRecord], body: Data, positions: [UUID: [Int]]) {
        self.records = records
        self.body = body
        self.positions = positions
    }

    /// Builds a batch from leased records. Records that are not a single-line JSON object
    /// with a UUID `id` cannot be acknowledged by id, so they are returned apart to be
    /// deleted and counted rather than sent.
    static func make(from leased: [StoredRecord]) -> (batch: UploadBatch?, unreadable: [RecordHandle]) {
        struct IdentifiedEvent: Decodable { var id: UUID }
        let decoder = JSONDecoder()
        var records: [StoredRecord] = []
        var unreadable: [RecordHandle] = []
        var positions: [UUID: [Int]] = [:]
        var body = Data()
        body.reserveCapacity(leased.reduce(0) { $0 + $1.payload.count + 1 })
        for record in leased {
            let payload = record.payload
            guard payload.first == UInt8(ascii: "{"), !payload.contains(0x0A), !payload.contains(0x0D),
                  let identified = try? decoder.decode(IdentifiedEvent.self, from: payload) else {
                unreadable.append(record.handle)
                continue
            }
            positions[identified.id, default: []].append(records.count)
            records.append(record)
            body.append(payload)
            body.append(0x0A)
        }
        guard !records.isEmpty else { return (nil, unreadable) }
        return (UploadBatch(records: records, body: body, positions: positions), unreadable)
    }

    /// Splits the batch's records by the server's answer: those to delete (accepted or
    /// rejected, with the rejection reasons) and those it did not mention.
    func resolve(_ response: IngestResponse) -> Resolution {
        var delete = Set<Int>()
        var resolution = Resolution()
        for text in response.accepted {
            guard let id = UUID(uuidString: text), let found = positions[id] else {
                resolution.unknown += 1
                continue
            }
            for position in found where delete.insert(position).inserted { resolution.accepted += 1 }
        }
        for rejection in response.rejected {
            var found: [Int] = []
            if let text = rejection.id, let id = UUID(uuidString: text), let byId = positions[id] {
                found = byId
            } else if let index = rejection.index, records.indices.contains(index) {
                found = [index]
            }
            if found.isEmpty { resolution.unknown += 1 }
            for position in found where delete.insert(position).inserted {
                resolution.rejectionReasons.append(rejection.reason)
            }
        }
        for position in records.indices {
            if delete.contains(position) {
                resolution.delete.append(records[position].handle)
            } else {
                resolution.keep.append(records[position].handle)
            }
        }
        return resolution
    }

    /// The outcome of matching an answer against the batch.
    struct Resolution {
        var delete: [RecordHandle] = []
        var keep: [RecordHandle] = []
        var accepted = 0
        var rejectionReasons: [String] = []
        var unknown = 0
    }
}
