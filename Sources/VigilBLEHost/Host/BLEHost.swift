import VigilBLE

/// A BLE host (central role) driving one controller over an ``HCIChannel``: the controller's
/// initialisation, HCI command flow, scanning, connection setup and teardown, ACL flow control
/// by the controller's buffer credits, L2CAP on the fixed ATT, LE signaling and SMP channels,
/// and one ``HostLink`` (ATT client and GATT client) per connection.
///
/// Confined to `scheduler` (the channel must deliver there too); every callback runs there.
/// Commands go one at a time (a controller may accept more, but nothing here needs it), each
/// with a timeout. ACL packets go to the controller only while it has buffer credits (LE Read
/// Buffer Size), which come back with Number Of Completed Packets; the rest wait in a FIFO.
public final class BLEHost {
    /// Link setup choices.
    public let configuration: HostConfiguration
    /// Counters.
    public private(set) var statistics = HostStatistics()
    /// Whether initialisation finished and the channel is open.
    public private(set) var isReady = false
    /// The controller's LE features (LE Read Local Supported Features).
    public private(set) var leFeatures: UInt64 = 0
    /// The controller's public address, if it has one.
    public private(set) var localAddress: DeviceAddress?
    /// Longest ACL payload the controller takes.
    public private(set) var aclDataLength = 27
    /// ACL packets the controller buffers.
    public private(set) var aclBufferCount = 1
    /// The static random address this side scans and connects from.
    public private(set) var ownAddress: DeviceAddress?
    /// The controller's supported commands mask (Read Local Supported Commands; empty if unread).
    public private(set) var supportedCommands: [UInt8] = []
    /// Live links by handle.
    public private(set) var links: [UInt16: HostLink] = [:]

    /// An advertisement or scan response arrived.
    public var onAdvertisement: ((LEAdvertisingReport) -> Void)?
    /// A link finished its setup (ATT MTU exchanged).
    public var onConnected: ((HostLink) -> Void)?
    /// A connection request failed (or was cancelled: status 0x02).
    public var onConnectFailed: ((DeviceAddress, HostError) -> Void)?
    /// A link went down, with the HCI reason.
    public var onDisconnected: ((HostLink, UInt8) -> Void)?
    /// The channel broke; the host is unusable.
    public var onFailure: ((HostError) -> Void)?
    /// A link's Write Command backlog drained below the limit after having reached it.
    public var onWriteBufferAvailable: ((HostLink) -> Void)?
    /// A notification or indication: link, handle, value.
    public var onValue: ((HostLink, UInt16, [UInt8]) -> Void)?

    private let channel: any HCIChannel
    private let scheduler: any LinkScheduler
    private var decoder = H4Decoder()
    private var commandQueue: [QueuedCommand] = []
    private var commandInFlight: (opcode: UInt16, completion: (Result<[UInt8], HostError>) -> Void, timer: ScheduledTask)?
    private var commandCredits = 1
    private var aclCredits = 1
    private var aclQueue: [ACLPacket] = []
    private var aclInFlight: [UInt16: Int] = [:]
    private var aclQueued: [UInt16: Int] = [:]
    private var pendingConnection: DeviceAddress?
    private var failed: HostError?

    /// A host on `channel`; call ``start(completion:)`` to initialise the controller.
    public init(channel: any HCIChannel, scheduler: any LinkScheduler, configuration: HostConfiguration = HostConfiguration()) {
        self.channel = channel
        self.scheduler = scheduler
        self.configuration = configuration
    }

    /// Whether the controller supports LE Data Packet Length Extension (LE feature bit 5) and
    /// lists LE Set Data Length among its commands (octet 33 bit 6).
    public var supportsDataLengthExtension: Bool { leFeatures & (1 << 5) != 0 && supportsCommand(octet: 33, bit: 6) }
    /// Whether the controller supports the LE 2M PHY (LE feature bit 8) and lists LE Set PHY
    /// among its commands (octet 35 bit 6).
    public var supports2MPHY: Bool { leFeatures & (1 << 8) != 0 && supportsCommand(octet: 35, bit: 6) }

    /// Whether the supported commands mask has the bit (Core spec Vol 4 Part E 6.27); true when
    /// the controller did not report a mask, so the command is tried and a refusal counted.
    public func supportsCommand(octet: Int, bit: Int) -> Bool {
        guard supportedCommands.count == 64, (0..<64).contains(octet), (0..<8).contains(bit) else { return true }
        return supportedCommands[octet] & (1 << bit) != 0
    }

    /// Opens the channel and initialises the controller: Reset, event masks (LE: connection
    /// complete, advertising reports legacy and extended, connection update, remote features,
    /// parameter requests, data length change, PHY update), buffer sizes, LE features, public
    /// address, supported commands, and the static random address this side uses.
    public func start(completion: @escaping (Result<Void, HostError>) -> Void) {
        channel.onReceive = { [weak self] bytes in self?.receive(bytes) }
        channel.onClose = { [weak self] error in self?.channelClosed(error) }
        channel.start()
        command(.reset) { [self] result in
            guard case .success = result else { return completion(result.map { _ in () }) }
            command(.setEventMask(0x2000_1FFF_FFFF_FFFF)) { [self] _ in
                command(.leSetEventMask(0x187F)) { [self] _ in
                    command(.readBufferSize) { [self] shared in
                        if case .success(let r) = shared, r.count >= 7 {
                            aclDataLength = Int(UInt16(r[0]) | UInt16(r[1]) << 8)
                            aclBufferCount = Int(UInt16(r[3]) | UInt16(r[4]) << 8)
                        }
                        command(.leReadBufferSize) { [self] le in
                            if case .success(let r) = le, r.count >= 3, r[0] | r[1] != 0 {
                                aclDataLength = Int(UInt16(r[0]) | UInt16(r[1]) << 8)
                                aclBufferCount = max(1, Int(r[2]))
                            }
                            aclDataLength = max(27, aclDataLength)
                            aclBufferCount = max(1, aclBufferCount)
                            aclCredits = aclBufferCount
                            command(.leReadLocalSupportedFeatures) { [self] features in
                                if case .success(let r) = features, r.count >= 8 {
                                    leFeatures = r.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                                }
                                command(.readBDAddr) { [self] address in
                                    if case .success(let r) = address, r.count >= 6 {
                                        localAddress = DeviceAddress(wireBytes: Array(r.prefix(6)), kind: .publicDevice)
                                    }
                                    command(.readLocalSupportedCommands) { [self] supported in
                                        if case .success(let r) = supported, r.count >= 64 { supportedCommands = Array(r.prefix(64)) }
                                        var generator = SystemRandomNumberGenerator()
                                        let random = configuration.randomAddress ?? .randomStatic(using: &generator)
                                        command(.leSetRandomAddress(random)) { [self] result in
                                            if let failed { return completion(.failure(failed)) }
                                            guard case .success = result else { return completion(result.map { _ in () }) }
                                            ownAddress = random
                                            isReady = true
                                            completion(.success(()))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Closes the channel; links vanish without disconnect events.
    public func close() { channel.close() }

    // MARK: Scanning and connections

    /// Starts scanning (duplicates filtered by the controller).
    public func startScan(completion: @escaping (Result<Void, HostError>) -> Void) {
        command(.leSetScanParameters(active: configuration.activeScan, interval: 0x0030, window: 0x0030, ownAddress: .random)) { [self] result in
            guard case .success = result else { return completion(result.map { _ in () }) }
            command(.leSetScanEnable(true, filterDuplicates: true)) { completion($0.map { _ in () }) }
        }
    }

    /// Stops scanning.
    public func stopScan(completion: @escaping (Result<Void, HostError>) -> Void = { _ in }) {
        command(.leSetScanEnable(false, filterDuplicates: false)) { completion($0.map { _ in () }) }
    }

    /// Asks the controller to connect to `peer`; answered by ``onConnected`` or ``onConnectFailed``.
    public func connect(to peer: DeviceAddress) {
        guard isReady else { return report(connectFailure: peer, .notReady) }
        guard pendingConnection == nil else { return report(connectFailure: peer, .busy) }
        pendingConnection = peer
        command(.leCreateConnection(peer: peer, parameters: configuration.connectionParameters, ownAddress: .random)) { [self] result in
            if case .failure(let error) = result, pendingConnection == peer {
                pendingConnection = nil
                onConnectFailed?(peer, error)
            }
        }
    }

    /// The peer a connection request is pending for.
    public var connectingTo: DeviceAddress? { pendingConnection }

    /// Abandons the pending connection request; the controller answers with a failed
    /// connection complete (status 0x02), reported through ``onConnectFailed``.
    public func cancelConnect() {
        guard pendingConnection != nil else { return }
        command(.leCreateConnectionCancel) { _ in }
    }

    /// Closes a link; ``onDisconnected`` follows.
    public func disconnect(_ link: HostLink, reason: UInt8 = HCIStatus.remoteUserTerminated) {
        guard !link.isClosed else { return }
        command(.disconnect(handle: link.handle, reason: reason)) { _ in }
    }

    /// Asks for new connection parameters (HCI LE Connection Update); completes when the
    /// controller reports the update (or refuses the command).
    public func updateConnection(_ link: HostLink, parameters: ConnectionParameters,
                                 completion: @escaping (Result<Void, HostError>) -> Void = { _ in }) {
        command(.leConnectionUpdate(handle: link.handle, parameters: parameters)) { completion($0.map { _ in () }) }
    }

    /// Reads the link's RSSI in dBm.
    public func readRSSI(_ link: HostLink, completion: @escaping (Result<Int, HostError>) -> Void) {
        command(.readRSSI(handle: link.handle)) { result in
            completion(result.map { r in r.count >= 3 ? Int(Int8(bitPattern: r[2])) : 127 })
        }
    }

    /// The live link to `peer`.
    public func link(to peer: DeviceAddress) -> HostLink? {
        links.values.first { $0.peer.wireBytes == peer.wireBytes }
    }

    /// Whether another Write Command on `link` fits in the host's ACL backlog now. When it
    /// does not, ``onWriteBufferAvailable`` fires once the backlog drains.
    public func canQueueWriteCommand(on link: HostLink) -> Bool {
        guard !link.isClosed else { return false }
        let fits = hasRoomForWriteCommand(link.handle)
        if !fits { link.writeBufferWasFull = true }
        return fits
    }

    /// Whether one more full-MTU PDU fits in the link's backlog of ACL packets waiting for
    /// controller credits, which may hold one controller buffer's worth, and at least two PDUs.
    private func hasRoomForWriteCommand(_ handle: UInt16) -> Bool {
        let perPDU = (configuration.preferredMTU + 4 + aclDataLength - 1) / aclDataLength
        return aclQueued[handle, default: 0] + perPDU <= max(aclBufferCount, 2 * perPDU)
    }

    // MARK: Commands

    /// Queues an HCI command; completes with its return parameters after the status byte
    /// (empty for commands answered by Command Status), or the failure.
    /// `timeoutMs` overrides the configured command timeout.
    public func command(_ command: HCICommand, timeoutMs: Double? = nil, completion: @escaping (Result<[UInt8], HostError>) -> Void) {
        if let failed {
            scheduler.execute(label: "hci: host failed") { completion(.failure(failed)) }
            return
        }
        commandQueue.append(QueuedCommand(command: command, timeoutMs: timeoutMs ?? configuration.commandTimeoutMs, completion: completion))
        pumpCommands()
    }

    private struct QueuedCommand {
        let command: HCICommand
        let timeoutMs: Double
        let completion: (Result<[UInt8], HostError>) -> Void
    }

    /// The optional link-setup commands wait at most this long: a controller may list a command
    /// it never answers (Bumble's virtual controller does so for LE Set PHY), and every command
    /// behind it waits.
    private static let optionalCommandTimeoutMs = 1_000.0

    private func pumpCommands() {
        guard commandInFlight == nil, commandCredits > 0, failed == nil, !commandQueue.isEmpty else { return }
        let next = commandQueue.removeFirst()
        let command = next.command
        let completion = next.completion
        let opcode = command.opcode
        let timer = scheduler.schedule(afterMilliseconds: next.timeoutMs, label: "hci: command timeout") { [weak self] in
            guard let self, let inFlight = self.commandInFlight, inFlight.opcode == opcode else { return }
            self.commandInFlight = nil
            self.commandCredits = 1
            self.statistics.commandsFailed += 1
            inFlight.completion(.failure(.commandTimeout(opcode: opcode)))
            self.pumpCommands()
        }
        commandInFlight = (opcode, completion, timer)
        commandCredits -= 1
        statistics.commandsSent += 1
        transmit(command.packet)
    }

    private func finishCommand(opcode: UInt16, credits: UInt8, _ result: Result<[UInt8], HostError>) {
        commandCredits = Int(credits)
        if let inFlight = commandInFlight, inFlight.opcode == opcode {
            commandInFlight = nil
            inFlight.timer.cancel()
            if case .failure = result { statistics.commandsFailed += 1 }
            inFlight.completion(result)
        }
        pumpCommands()
    }

    // MARK: ACL

    func sendL2CAP(_ link: HostLink, channel: UInt16, payload: [UInt8]) {
        guard !link.isClosed else { return }
        for packet in L2CAPFragmenter.fragments(handle: link.handle, channel: channel, payload: payload, maximumFragment: aclDataLength) {
            aclQueue.append(packet)
            aclQueued[link.handle, default: 0] += 1
        }
        pumpACL()
    }

    private func pumpACL() {
        while aclCredits > 0, !aclQueue.isEmpty, failed == nil {
            let packet = aclQueue.removeFirst()
            aclQueued[packet.handle, default: 1] -= 1
            aclCredits -= 1
            aclInFlight[packet.handle, default: 0] += 1
            statistics.aclPacketsSent += 1
            statistics.maximumACLInFlight = max(statistics.maximumACLInFlight, aclBufferCount - aclCredits)
            transmit(.acl(packet))
        }
        for link in links.values where link.writeBufferWasFull && hasRoomForWriteCommand(link.handle) {
            link.writeBufferWasFull = false
            onWriteBufferAvailable?(link)
        }
    }

    private func transmit(_ packet: HCIPacket) {
        do { try channel.send(packet.h4Bytes) } catch { channelClosed(error) }
    }

    // MARK: Input

    private func receive(_ bytes: [UInt8]) {
        let packets: [HCIPacket]
        do { packets = try decoder.feed(bytes) } catch {
            statistics.malformedPackets += 1
            channel.close()
            channelClosed(.corruptStream(error))
            return
        }
        for packet in packets {
            switch packet {
            case .event(let code, let parameters):
                do { handle(try HCIEvent.decode(code: code, parameters: parameters)) } catch { statistics.malformedPackets += 1 }
            case .acl(let acl):
                statistics.aclPacketsReceived += 1
                receiveACL(acl)
            case .command, .sco, .iso:
                break
            }
        }
    }

    private func handle(_ event: HCIEvent) {
        switch event {
        case .commandComplete(let credits, let opcode, let r):
            let status = r.first ?? HCIStatus.success
            finishCommand(opcode: opcode, credits: credits,
                          status == HCIStatus.success ? .success(Array(r.dropFirst())) : .failure(.commandFailed(opcode: opcode, status: status)))
        case .commandStatus(let status, let credits, let opcode):
            finishCommand(opcode: opcode, credits: credits,
                          status == HCIStatus.success ? .success([]) : .failure(.commandFailed(opcode: opcode, status: status)))
        case .numberOfCompletedPackets(let entries):
            for entry in entries {
                let inFlight = aclInFlight[entry.handle, default: 0]
                let freed = min(inFlight, Int(entry.count))
                aclInFlight[entry.handle] = inFlight - freed
                aclCredits = min(aclBufferCount, aclCredits + freed)
                statistics.aclCreditsReturned += freed
            }
            pumpACL()
        case .disconnectionComplete(let status, let handle, let reason):
            guard status == HCIStatus.success, let link = links.removeValue(forKey: handle) else { return }
            link.isClosed = true
            // The controller drops what it held for the link; those credits are free again.
            aclCredits = min(aclBufferCount, aclCredits + (aclInFlight.removeValue(forKey: handle) ?? 0))
            aclQueue.removeAll { $0.handle == handle }
            aclQueued[handle] = nil
            link.reassembler.reset()
            link.att.close()
            onDisconnected?(link, reason)
            pumpACL()
        case .leConnectionComplete(let complete):
            connectionComplete(complete)
        case .leAdvertisingReport(let reports):
            for report in reports { onAdvertisement?(report) }
        case .leConnectionUpdateComplete(let status, let handle, let interval, let latency, let timeout):
            guard status == HCIStatus.success, let link = links[handle] else { return }
            link.interval = interval
            link.latency = latency
            link.supervisionTimeout = timeout
        case .leRemoteConnectionParameterRequest(let handle, let parameters):
            statistics.parameterUpdatesAccepted += 1
            command(.leRemoteConnectionParameterRequestReply(handle: handle, parameters: parameters)) { _ in }
        case .leDataLengthChange(let handle, let tx, _, let rx, _):
            links[handle]?.maxTxOctets = tx
            links[handle]?.maxRxOctets = rx
        case .lePHYUpdateComplete(let status, let handle, let tx, let rx):
            guard status == HCIStatus.success else { return }
            links[handle]?.txPHY = tx
            links[handle]?.rxPHY = rx
        case .hardwareError(let code):
            channel.close()
            channelClosed(.system(call: "controller", errno: Int32(code), message: "hardware error"))
        case .unhandled:
            break
        }
    }

    private func connectionComplete(_ complete: LEConnectionComplete) {
        let requested = pendingConnection
        pendingConnection = nil
        guard complete.status == HCIStatus.success else {
            onConnectFailed?(requested ?? complete.peer, .commandFailed(opcode: HCICommand.Opcode.leCreateConnection, status: complete.status))
            return
        }
        guard complete.isCentral else {
            // Only the central role is implemented: refuse links where the peer is central.
            command(.disconnect(handle: complete.handle)) { _ in }
            return
        }
        let handle = complete.handle
        // The peer as asked for (its address type as the caller knew it).
        let peer = requested.flatMap { $0.wireBytes == complete.peer.wireBytes ? $0 : nil } ?? complete.peer
        var sender: ((([UInt8]) -> Void))?
        let link = HostLink(handle: handle, peer: peer, interval: complete.interval, latency: complete.latency,
                            supervisionTimeout: complete.supervisionTimeout, scheduler: scheduler,
                            attTimeoutMs: configuration.attTransactionTimeoutMs) { pdu in sender?(pdu) }
        sender = { [weak self, weak link] pdu in
            guard let self, let link else { return }
            self.sendL2CAP(link, channel: 0x0004, payload: pdu)
        }
        link.att.onNotification = { [weak self, weak link] handle, value in
            guard let self, let link else { return }
            self.onValue?(link, handle, value)
        }
        link.att.onIndication = link.att.onNotification
        link.att.onTimeout = { [weak self, weak link] in
            guard let self, let link else { return }
            self.disconnect(link)
        }
        links[handle] = link
        if configuration.requestDataLengthExtension, supportsDataLengthExtension {
            command(.leSetDataLength(handle: handle, txOctets: 251, txTime: 2120), timeoutMs: Self.optionalCommandTimeoutMs) { _ in }
        }
        if configuration.request2MPHY, supports2MPHY {
            command(.leSetPHY2M(handle: handle), timeoutMs: Self.optionalCommandTimeoutMs) { _ in }
        }
        link.att.exchangeMTU(configuration.preferredMTU) { [weak self, weak link] result in
            guard let self, let link, !link.isClosed else { return }
            switch result {
            case .success, .failure(.attribute):
                // A server that refuses the exchange keeps the default MTU of 23.
                link.isEstablished = true
                self.onConnected?(link)
            case .failure:
                self.disconnect(link)
            }
        }
    }

    private func receiveACL(_ packet: ACLPacket) {
        guard let link = links[packet.handle] else { return }
        let pdu: L2CAPReassembler.PDU?
        do { pdu = try link.reassembler.add(packet) } catch {
            statistics.malformedPackets += 1
            return
        }
        guard let pdu else { return }
        switch pdu.channel {
        case 0x0004:
            link.att.receive(pdu.payload)
        case 0x0005:
            signaling(pdu.payload, on: link)
        case 0x0006:
            // Security Manager: pairing is not implemented; answer Pairing Failed, reason 0x05
            // (pairing not supported), so the peer does not wait for its SMP timeout.
            if let code = pdu.payload.first, code == 0x01 || code == 0x0B {
                sendL2CAP(link, channel: 0x0006, payload: [0x05, 0x05])
            }
        default:
            statistics.malformedPackets += 1
        }
    }

    private func signaling(_ payload: [UInt8], on link: HostLink) {
        guard let command = try? LESignalingCommand.decode(payload) else {
            statistics.malformedPackets += 1
            return
        }
        if command.code == LESignalingCommand.Code.connectionParameterUpdateRequest {
            guard let parameters = try? command.connectionParameterUpdate() else {
                statistics.malformedPackets += 1
                return
            }
            let acceptable = (6...3200).contains(parameters.intervalMin) && parameters.intervalMin <= parameters.intervalMax
                && parameters.intervalMax <= 3200 && parameters.latency <= 499 && (10...3200).contains(parameters.supervisionTimeout)
            sendL2CAP(link, channel: 0x0005, payload: LESignalingCommand.connectionParameterUpdateResponse(
                identifier: command.identifier, accepted: acceptable).bytes)
            if acceptable {
                statistics.parameterUpdatesAccepted += 1
                updateConnection(link, parameters: parameters)
            }
        } else if !Self.signalingCodesWithoutAnswer.contains(command.code) {
            // Every request this host does not implement (credit-based channels, disconnection
            // requests, unknown codes) is rejected; responses and indications need no answer.
            sendL2CAP(link, channel: 0x0005, payload: LESignalingCommand.commandNotUnderstood(identifier: command.identifier).bytes)
        }
    }

    /// Command Reject, Disconnection/Connection Parameter Update/credit-based responses, and
    /// Flow Control Credit Indication.
    private static let signalingCodesWithoutAnswer: Set<UInt8> = [0x01, 0x07, 0x13, 0x15, 0x16, 0x18, 0x1A]

    private func report(connectFailure peer: DeviceAddress, _ error: HostError) {
        scheduler.execute(label: "hci: connect refused") { [weak self] in self?.onConnectFailed?(peer, error) }
    }

    private func channelClosed(_ error: HCIChannelError) {
        guard failed == nil else { return }
        let hostError = HostError.channel(error)
        failed = hostError
        isReady = false
        if let inFlight = commandInFlight {
            commandInFlight = nil
            inFlight.timer.cancel()
            inFlight.completion(.failure(hostError))
        }
        let waiting = commandQueue
        commandQueue = []
        for queued in waiting { queued.completion(.failure(hostError)) }
        let live = links
        links = [:]
        aclQueue = []
        for link in live.values {
            link.isClosed = true
            link.att.close()
        }
        pendingConnection = nil
        onFailure?(hostError)
    }
}
