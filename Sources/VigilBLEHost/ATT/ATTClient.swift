import VigilBLE

/// The client side of an ATT bearer (Core spec Vol 3 Part F): one outstanding request at a
/// time, a queue behind it, the 30-second transaction timeout, notifications, and indications
/// confirmed as they arrive.
///
/// Confined to its ``VigilBLE/LinkScheduler`` (the link's serial context); the timeout runs on
/// the scheduler's clock, so a virtual-time scheduler tests it without waiting. Feed it every
/// PDU received on CID 4 with ``receive(_:)``; it sends through `send` (one ATT PDU per call,
/// never longer than ``mtu``). When a transaction times out the bearer is dead (the spec allows
/// no further requests on it): every queued request fails and ``onTimeout`` asks the owner to
/// drop the link. Completions run on the scheduler, never synchronously inside a request call.
public final class ATTClient {
    /// The spec's transaction timeout.
    public static let transactionTimeoutMs = 30_000.0

    /// The MTU in force (23 until an exchange raised it).
    public private(set) var mtu = 23
    /// Notifications: handle and value.
    public var onNotification: ((UInt16, [UInt8]) -> Void)?
    /// Indications: handle and value; the confirmation is sent after the handler returns.
    public var onIndication: ((UInt16, [UInt8]) -> Void)?
    /// The transaction timeout fired; the owner must drop the link.
    public var onTimeout: (() -> Void)?
    /// PDUs received that were neither a response nor a server message the client handles.
    public private(set) var unexpectedPDUs = 0

    private let scheduler: any LinkScheduler
    private let send: ([UInt8]) -> Void
    private let timeoutMs: Double
    private let serverMTU: Int
    private var queue: [Pending] = []
    private var outstanding: (request: Pending, timer: ScheduledTask)?
    private var closedBy: ATTClientError?

    private struct Pending {
        let pdu: [UInt8]
        let completion: (Result<[UInt8], ATTClientError>) -> Void
    }

    /// A client sending through `send`; `serverMTU` is what this side answers when the peer
    /// starts an MTU exchange itself.
    public init(scheduler: any LinkScheduler, timeoutMs: Double = ATTClient.transactionTimeoutMs, serverMTU: Int = 247,
                send: @escaping ([UInt8]) -> Void) {
        self.scheduler = scheduler
        self.timeoutMs = timeoutMs
        self.serverMTU = serverMTU
        self.send = send
    }

    /// Whether a request is waiting for its response.
    public var isBusy: Bool { outstanding != nil }

    /// Requests queued behind the outstanding one.
    public var queuedRequestCount: Int { queue.count }

    // MARK: Requests

    /// Sends a request PDU (opcode first) once no other is outstanding; completes with the raw
    /// response PDU, or the Error Response mapped to ``ATTClientError/attribute(_:handle:request:)``.
    public func request(_ pdu: [UInt8], completion: @escaping (Result<[UInt8], ATTClientError>) -> Void) {
        if let closedBy {
            _ = closedBy
            scheduler.execute(label: "att: bearer closed") { completion(.failure(.disconnected)) }
            return
        }
        queue.append(Pending(pdu: pdu, completion: completion))
        pump()
    }

    /// Sends a Write Command (no response, no queue). Returns false when the bearer is closed.
    @discardableResult
    public func writeCommand(handle: UInt16, value: [UInt8]) -> Bool {
        guard closedBy == nil else { return false }
        var pdu: [UInt8] = [ATTOpcode.writeCommand]
        pdu.appendLE(handle)
        pdu += value.prefix(mtu - 3)
        send(pdu)
        return true
    }

    /// Exchange MTU: offers `clientMTU` (≥ 23); the MTU becomes min(client, server).
    public func exchangeMTU(_ clientMTU: Int, completion: @escaping (Result<Int, ATTClientError>) -> Void) {
        var pdu: [UInt8] = [ATTOpcode.exchangeMTURequest]
        pdu.appendLE(UInt16(clamping: max(23, clientMTU)))
        request(pdu) { [weak self] result in
            completion(result.flatMap { response -> Result<Int, ATTClientError> in
                var r = PayloadReader(response.dropFirst())
                guard let server = try? r.u16("Server Rx MTU") else { return .failure(.malformedResponse("short Exchange MTU Response")) }
                let agreed = max(23, min(max(23, clientMTU), Int(server)))
                self?.mtu = agreed
                return .success(agreed)
            })
        }
    }

    /// Read By Group Type over `start...end`: (start handle, end group handle, value) triples.
    public func readByGroupType(start: UInt16, end: UInt16, type: BLEUUID,
                                completion: @escaping (Result<[(start: UInt16, end: UInt16, value: [UInt8])], ATTClientError>) -> Void) {
        request(Self.rangeRequest(ATTOpcode.readByGroupTypeRequest, start, end, type)) { result in
            completion(result.flatMap { response in
                Self.decodeList(response, minimumLength: 5) { r in
                    let s = try r.u16("Attribute Handle")
                    let e = try r.u16("End Group Handle")
                    return (s, e, r.rest())
                }
            })
        }
    }

    /// Read By Type over `start...end`: (handle, value) pairs.
    public func readByType(start: UInt16, end: UInt16, type: BLEUUID,
                           completion: @escaping (Result<[(handle: UInt16, value: [UInt8])], ATTClientError>) -> Void) {
        request(Self.rangeRequest(ATTOpcode.readByTypeRequest, start, end, type)) { result in
            completion(result.flatMap { response in
                Self.decodeList(response, minimumLength: 3) { r in (try r.u16("Attribute Handle"), r.rest()) }
            })
        }
    }

    /// Find Information over `start...end`: (handle, attribute type) pairs.
    public func findInformation(start: UInt16, end: UInt16,
                                completion: @escaping (Result<[(handle: UInt16, type: BLEUUID)], ATTClientError>) -> Void) {
        var pdu: [UInt8] = [ATTOpcode.findInformationRequest]
        pdu.appendLE(start)
        pdu.appendLE(end)
        request(pdu) { result in
            completion(result.flatMap { response in
                var r = PayloadReader(response.dropFirst())
                guard let format = try? r.u8("Format"), format == 1 || format == 2 else {
                    return .failure(.malformedResponse("Find Information Response format"))
                }
                let width = format == 1 ? 2 : 16
                var out: [(handle: UInt16, type: BLEUUID)] = []
                while r.remaining > 0 {
                    guard let handle = try? r.u16("Handle"), let uuid = try? r.take(width, "UUID") else {
                        return .failure(.malformedResponse("Find Information Response truncated"))
                    }
                    out.append((handle, UUIDCoding.uuid(uuid)))
                }
                return out.isEmpty ? .failure(.malformedResponse("empty Find Information Response")) : .success(out)
            })
        }
    }

    /// Read Request: the value's first MTU − 1 bytes.
    public func read(handle: UInt16, completion: @escaping (Result<[UInt8], ATTClientError>) -> Void) {
        var pdu: [UInt8] = [ATTOpcode.readRequest]
        pdu.appendLE(handle)
        request(pdu) { completion($0.map { Array($0.dropFirst()) }) }
    }

    /// Read Blob Request: the value from `offset`.
    public func readBlob(handle: UInt16, offset: UInt16, completion: @escaping (Result<[UInt8], ATTClientError>) -> Void) {
        var pdu: [UInt8] = [ATTOpcode.readBlobRequest]
        pdu.appendLE(handle)
        pdu.appendLE(offset)
        request(pdu) { completion($0.map { Array($0.dropFirst()) }) }
    }

    /// Write Request (value ≤ MTU − 3).
    public func write(handle: UInt16, value: [UInt8], completion: @escaping (Result<Void, ATTClientError>) -> Void) {
        var pdu: [UInt8] = [ATTOpcode.writeRequest]
        pdu.appendLE(handle)
        pdu += value
        request(pdu) { completion($0.map { _ in () }) }
    }

    /// Prepare Write Request; completes with the echoed (handle, offset, part) for checking.
    public func prepareWrite(handle: UInt16, offset: UInt16, part: [UInt8],
                             completion: @escaping (Result<(handle: UInt16, offset: UInt16, part: [UInt8]), ATTClientError>) -> Void) {
        var pdu: [UInt8] = [ATTOpcode.prepareWriteRequest]
        pdu.appendLE(handle)
        pdu.appendLE(offset)
        pdu += part
        request(pdu) { result in
            completion(result.flatMap { response in
                var r = PayloadReader(response.dropFirst())
                guard let h = try? r.u16("Attribute Handle"), let o = try? r.u16("Value Offset") else {
                    return .failure(.malformedResponse("short Prepare Write Response"))
                }
                return .success((h, o, r.rest()))
            })
        }
    }

    /// Execute Write Request: commits (`true`) or cancels the prepared writes.
    public func executeWrite(commit: Bool, completion: @escaping (Result<Void, ATTClientError>) -> Void) {
        request([ATTOpcode.executeWriteRequest, commit ? 0x01 : 0x00]) { completion($0.map { _ in () }) }
    }

    // MARK: Input

    /// Handles one PDU received on the ATT channel.
    public func receive(_ pdu: [UInt8]) {
        guard let opcode = pdu.first else { return }
        switch opcode {
        case ATTOpcode.handleValueNotification, ATTOpcode.handleValueIndication:
            guard pdu.count >= 3 else { unexpectedPDUs += 1; return }
            let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
            let value = Array(pdu[3...])
            if opcode == ATTOpcode.handleValueNotification {
                onNotification?(handle, value)
            } else {
                onIndication?(handle, value)
                if closedBy == nil { send([ATTOpcode.handleValueConfirmation]) }
            }
        case ATTOpcode.errorResponse:
            guard let (request, timer) = outstanding else { unexpectedPDUs += 1; return }
            var r = PayloadReader(pdu.dropFirst())
            guard let requestOpcode = try? r.u8("Request Opcode"), let handle = try? r.u16("Attribute Handle"),
                  let code = try? r.u8("Error Code") else {
                finish(request, timer, .failure(.malformedResponse("short Error Response")))
                return
            }
            guard requestOpcode == request.pdu.first else { unexpectedPDUs += 1; return }
            finish(request, timer, .failure(.attribute(ATTErrorCode(rawValue: code), handle: handle, request: requestOpcode)))
        default:
            if let (request, timer) = outstanding, let expected = request.pdu.first.flatMap(ATTOpcode.response(to:)), opcode == expected {
                finish(request, timer, .success(pdu))
            } else if opcode & 0x40 == 0, opcode % 2 == 0, opcode != ATTOpcode.handleValueConfirmation {
                answerServerRequest(pdu)
            } else {
                unexpectedPDUs += 1
            }
        }
    }

    /// Fails everything outstanding with ``ATTClientError/disconnected`` and refuses new requests.
    public func close() {
        guard closedBy == nil else { return }
        closedBy = .disconnected
        failAll(with: .disconnected)
    }

    // MARK: Internals

    private func pump() {
        guard outstanding == nil, closedBy == nil, !queue.isEmpty else { return }
        let next = queue.removeFirst()
        let opcode = next.pdu.first ?? 0
        let timer = scheduler.schedule(afterMilliseconds: timeoutMs, label: "att: transaction timeout") { [weak self] in
            self?.transactionTimedOut(opcode)
        }
        outstanding = (next, timer)
        send(next.pdu)
    }

    private func finish(_ request: Pending, _ timer: ScheduledTask, _ result: Result<[UInt8], ATTClientError>) {
        timer.cancel()
        outstanding = nil
        request.completion(result)
        pump()
    }

    private func transactionTimedOut(_ opcode: UInt8) {
        guard let (request, _) = outstanding else { return }
        outstanding = nil
        closedBy = .timeout(request: opcode)
        request.completion(.failure(.timeout(request: opcode)))
        failAll(with: .disconnected)
        onTimeout?()
    }

    private func failAll(with error: ATTClientError) {
        if let (request, timer) = outstanding {
            timer.cancel()
            outstanding = nil
            request.completion(.failure(error))
        }
        let waiting = queue
        queue = []
        for request in waiting { request.completion(.failure(error)) }
    }

    /// This side has no GATT database: it answers the peer's MTU exchange, reports no attributes
    /// to discovery, and refuses other requests, so a peer that probes us is never left waiting.
    private func answerServerRequest(_ pdu: [UInt8]) {
        guard closedBy == nil, let opcode = pdu.first else { return }
        if opcode == ATTOpcode.exchangeMTURequest, pdu.count >= 3 {
            let client = Int(UInt16(pdu[1]) | UInt16(pdu[2]) << 8)
            var response: [UInt8] = [ATTOpcode.exchangeMTUResponse]
            response.appendLE(UInt16(clamping: serverMTU))
            send(response)
            mtu = max(23, min(client, serverMTU))
            return
        }
        let notFound: Set<UInt8> = [ATTOpcode.findInformationRequest, ATTOpcode.findByTypeValueRequest,
                                    ATTOpcode.readByTypeRequest, ATTOpcode.readByGroupTypeRequest]
        let handle: UInt16 = pdu.count >= 3 ? UInt16(pdu[1]) | UInt16(pdu[2]) << 8 : 0
        var response: [UInt8] = [ATTOpcode.errorResponse, opcode]
        response.appendLE(handle)
        response.append(notFound.contains(opcode) ? ATTErrorCode.attributeNotFound.rawValue : ATTErrorCode.requestNotSupported.rawValue)
        send(response)
    }

    static func rangeRequest(_ opcode: UInt8, _ start: UInt16, _ end: UInt16, _ type: BLEUUID) -> [UInt8] {
        var pdu: [UInt8] = [opcode]
        pdu.appendLE(start)
        pdu.appendLE(end)
        pdu += UUIDCoding.bytes(type) ?? []
        return pdu
    }

    /// Decodes the (length, [entries]) layout of Read By Type and Read By Group Type responses.
    static func decodeList<T>(_ response: [UInt8], minimumLength: Int,
                              _ entry: (inout PayloadReader) throws -> T) -> Result<[T], ATTClientError> {
        guard response.count >= 2 else { return .failure(.malformedResponse("short list response")) }
        let length = Int(response[1])
        guard length >= minimumLength else { return .failure(.malformedResponse("entry length \(length)")) }
        let body = response.dropFirst(2)
        guard body.count % length == 0, !body.isEmpty else { return .failure(.malformedResponse("list of \(body.count) bytes, entries of \(length)")) }
        var out: [T] = []
        var offset = body.startIndex
        while offset < body.endIndex {
            var r = PayloadReader(body[offset..<offset + length])
            do { out.append(try entry(&r)) } catch { return .failure(.malformedResponse("\(error)")) }
            offset += length
        }
        return .success(out)
    }
}
