import Dispatch
import Foundation
import Testing
import VigilBLE
import VigilBLEHost
import VigilTestSupport

/// Collects a transport's events on its queue; the test thread reads them through `sync`.
private final class EventLog: @unchecked Sendable {
    let queue: DispatchQueue
    private var events: [TransportEvent] = []

    init(queue: DispatchQueue) { self.queue = queue }

    func append(_ event: TransportEvent) { events.append(event) }

    /// Waits (up to `seconds`) for an event `match` accepts and returns what it extracted.
    func wait<T>(seconds: Double = 10, _ match: @escaping (TransportEvent) -> T?) -> T? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let found: T? = queue.sync {
                for (index, event) in events.enumerated() {
                    if let value = match(event) {
                        events.remove(at: index)
                        return value
                    }
                }
                return nil
            }
            if let found { return found }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }
}

/// A connected host transport to the Bumble peer, and helpers to drive it from the test thread.
private final class Session: @unchecked Sendable {
    static let service: BLEUUID = "7A1C0001-5A5E-4C2B-9E3A-1C2D3E4F5A6B"
    static let rx: BLEUUID = "7A1C0002-5A5E-4C2B-9E3A-1C2D3E4F5A6B"
    static let tx: BLEUUID = "7A1C0003-5A5E-4C2B-9E3A-1C2D3E4F5A6B"
    static let ind: BLEUUID = "7A1C0004-5A5E-4C2B-9E3A-1C2D3E4F5A6B"
    static let long: BLEUUID = "7A1C0005-5A5E-4C2B-9E3A-1C2D3E4F5A6B"
    static let refuse: BLEUUID = "7A1C0006-5A5E-4C2B-9E3A-1C2D3E4F5A6B"

    let scheduler = DispatchLinkScheduler()
    let transport: HostTransport
    let log: EventLog
    var peer: PeerIdentifier = "none"

    init(port: UInt16) throws {
        log = EventLog(queue: scheduler.queue)
        transport = try HostTransport.open(.tcp(host: "127.0.0.1", port: port), scheduler: scheduler)
        let log = self.log
        scheduler.queue.sync { transport.eventHandler = { log.append($0) } }
    }

    func run(_ work: @escaping (HostTransport) -> Void) {
        let transport = self.transport
        scheduler.queue.sync { work(transport) }
    }
}

@Suite(.enabled(if: BumblePeer.isAvailable, "needs Bumble (VIGIL_BUMBLE_PYTHON or .build/bumble-venv)"), .serialized)
struct BumbleStackTests {
    @Test func scansConnectsNegotiatesMTU247AndDiscoversTheService() throws {
        let peer = try BumblePeer()
        defer { peer.stop() }
        let session = try Session(port: peer.port)
        #expect(session.log.wait { if case .powerChanged(true) = $0 { return true }; return nil } == true)
        session.run { $0.startScan(services: [Session.service]) }
        let advertisement = try #require(session.log.wait { if case .advertisement(let a) = $0 { return a }; return nil })
        #expect(advertisement.peer.rawValue == "F0:F1:F2:F3:F4:F5/random")
        #expect(advertisement.services.contains(Session.service))
        #expect(advertisement.name == "BumblePeer")
        session.peer = advertisement.peer
        session.run { $0.stopScan(); $0.connect(advertisement.peer) }
        #expect(session.log.wait { if case .connected = $0 { return true }; return nil } == true)
        session.run { transport in
            #expect(transport.maximumWriteLength(.withoutResponse, for: advertisement.peer) == 244)
            #expect(transport.link(advertisement.peer)?.att.mtu == 247)
        }
        #expect(peer.waitFor({ $0 == "MTU 247" }, seconds: 5))
        let wanted = [Session.rx, Session.tx, Session.ind, Session.long, Session.refuse]
        session.run { $0.discover(service: Session.service, characteristics: wanted + ["7A1C00FF-5A5E-4C2B-9E3A-1C2D3E4F5A6B"], on: advertisement.peer) }
        let found = try #require(session.log.wait { if case .servicesDiscovered(_, let r) = $0 { return r }; return nil })
        #expect(try found.get() == Set(wanted))

        // Notifications on, then a Write Request echoed back as a notification and an indication.
        session.run { $0.setNotifications(true, characteristic: Session.tx, on: advertisement.peer) }
        session.run { $0.setNotifications(true, characteristic: Session.ind, on: advertisement.peer) }
        for _ in 0..<2 {
            let state = try #require(session.log.wait { if case .notificationStateChanged(_, _, let r) = $0 { return r }; return nil })
            #expect(try state.get() == true)
        }
        session.run { $0.write(Array("hello".utf8), characteristic: Session.rx, type: .withResponse, on: advertisement.peer) }
        let wrote = try #require(session.log.wait { if case .wrote(_, _, let r) = $0 { return r }; return nil })
        #expect((try? wrote.get()) != nil)
        let echoed = session.log.wait { if case .valueReceived(_, Session.tx, let v) = $0 { return v }; return nil }
        #expect(echoed == Array("hello".utf8))
        let indicated = session.log.wait { if case .valueReceived(_, Session.ind, let v) = $0 { return v }; return nil }
        #expect(indicated == Array("hell".utf8))

        // A long write (Prepare/Execute) of 400 bytes arrives whole.
        let long = (0..<400).map { UInt8(truncatingIfNeeded: $0 * 7) }
        session.run { $0.write(long, characteristic: Session.rx, type: .withResponse, on: advertisement.peer) }
        let wroteLong = try #require(session.log.wait { if case .wrote(_, _, let r) = $0 { return r }; return nil })
        #expect((try? wroteLong.get()) != nil)
        #expect(peer.waitFor({ $0.hasPrefix("WRITE 400 ") }, seconds: 5))
        let echoedLong = session.log.wait { if case .valueReceived(_, Session.tx, let v) = $0 { return v }; return nil }
        #expect(echoedLong == Array(long.prefix(244)))

        // A Write Command of the full 244 bytes.
        session.run { transport in
            #expect(transport.canSendWriteWithoutResponse(advertisement.peer))
            transport.write([UInt8](repeating: 0x5A, count: 244), characteristic: Session.rx, type: .withoutResponse, on: advertisement.peer)
        }
        #expect(peer.waitFor({ $0.hasPrefix("WRITE 244 5a5a") }, seconds: 5))

        // A write the peer refuses surfaces the ATT error code.
        session.run { $0.write([1], characteristic: Session.refuse, type: .withResponse, on: advertisement.peer) }
        let refused = try #require(session.log.wait { if case .wrote(_, _, let r) = $0 { return r }; return nil })
        #expect(throws: TransportFailure.self) { try refused.get() }
        if case .failure(let failure) = refused { #expect(failure.code == 0x80) }

        // A long read (Read + Read Blob) of the 300-byte value.
        let readDone = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var value: [UInt8] = []
        session.run { transport in
            let link = transport.link(advertisement.peer)!
            link.gatt.discoverPrimaryServices { services in
                let service = (try? services.get())?.first { $0.uuid == Session.service }
                link.gatt.discoverCharacteristics(of: service!) { chars in
                    let c = (try? chars.get())?.first { $0.uuid == Session.long }
                    link.gatt.readLong(handle: c!.valueHandle) { result in
                        value = (try? result.get()) ?? []
                        readDone.signal()
                    }
                }
            }
        }
        #expect(readDone.wait(timeout: .now() + 10) == .success)
        #expect(value == Array((Array(0...255) + Array(0...255)).prefix(300).map { UInt8($0) }))

        session.run { $0.cancelConnection(advertisement.peer) }
        let reason = session.log.wait { if case .disconnected(_, let r) = $0 { return r }; return nil }
        #expect(reason == .localHostTerminated)
        #expect(peer.waitFor({ $0.hasPrefix("DISCONNECTED") }, seconds: 5))
        session.run { $0.host.close() }
    }

    @Test func bleConnectionRunsUnchangedOverTheHost() throws {
        let peer = try BumblePeer()
        defer { peer.stop() }
        let scheduler = DispatchLinkScheduler()
        let transport = try HostTransport.open(.tcp(host: "127.0.0.1", port: peer.port), scheduler: scheduler)
        final class Seen: @unchecked Sendable {
            var states: [String] = []
            var values: [(BLEUUID, [UInt8])] = []
            var wrote: Result<Void, ConnectionError>?
        }
        let seen = Seen()
        let connection: BLEConnection = scheduler.queue.sync {
            let connection = BLEConnection(transport: transport, scheduler: scheduler)
            _ = connection.addObserver(ConnectionObserver(
                stateChanged: { seen.states.append($0.name) },
                valueReceived: { seen.values.append(($0, $1)) }))
            return connection
        }
        let profile = GATTProfile(service: Session.service, characteristics: [Session.rx], notifying: [Session.tx, Session.ind])
        let connectError: ConnectionError? = scheduler.queue.sync {
            do { try connection.connect(to: .service(profile)) } catch { return error as? ConnectionError }
            return nil
        }
        #expect(connectError == nil)
        func waitFor(_ condition: @escaping () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                if scheduler.queue.sync(execute: condition) { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return false
        }
        #expect(waitFor { seen.states.last == "ready" })
        #expect(seen.states == ["scanning", "connecting", "discovering", "ready"])
        scheduler.queue.sync {
            #expect(connection.maximumWriteLength(.withoutResponse) == 244)
            connection.write(Array("ping".utf8), to: Session.rx) { seen.wrote = $0 }
        }
        #expect(waitFor { seen.values.count >= 2 })
        scheduler.queue.sync {
            #expect((try? seen.wrote?.get()) != nil)
            #expect(seen.values.first { $0.0 == Session.tx }?.1 == Array("ping".utf8))
            #expect(seen.values.first { $0.0 == Session.ind }?.1 == Array("ping".utf8))
            // A full-MTU Write Command through BLEConnection's own checks.
            do { try connection.writeWithoutResponse([UInt8](repeating: 0x33, count: 244), to: Session.rx) } catch {
                Issue.record("Write Command refused: \(error)")
            }
        }
        #expect(peer.waitFor({ $0.hasPrefix("WRITE 244 3333") }, seconds: 5))

        // The peer drops the link: the connection reconnects on its own, through a new
        // connection handle, discovery and subscriptions again.
        scheduler.queue.sync {
            seen.states.removeAll()
            connection.write(Array("DROP".utf8), to: Session.rx) { _ in }
        }
        #expect(waitFor { seen.states.contains("reconnecting") && seen.states.last == "ready" })
        #expect(seen.states.first == "reconnecting")
        let before = scheduler.queue.sync { seen.values.count }
        scheduler.queue.sync { connection.write(Array("again".utf8), to: Session.rx) { _ in } }
        #expect(waitFor { seen.values.count >= before + 2 })
        #expect(scheduler.queue.sync { seen.values.last { $0.0 == Session.tx }?.1 } == Array("again".utf8))
        scheduler.queue.sync { connection.disconnect() }
        #expect(waitFor { seen.states.last == "idle" })
        #expect(peer.waitFor({ $0.hasPrefix("DISCONNECTED") }, seconds: 5))
        scheduler.queue.sync { transport.host.close() }
    }

    @Test func writeCommandsStreamWithoutLossUnderTheControllersFlowControl() throws {
        let peer = try BumblePeer()
        defer { peer.stop() }
        let scheduler = DispatchLinkScheduler()
        let transport = try HostTransport.open(.tcp(host: "127.0.0.1", port: peer.port), scheduler: scheduler)
        final class Stream: @unchecked Sendable {
            var ready = false
            var sent = 0
            var refusals = 0
            var echoes = 0
        }
        let stream = Stream()
        let total = 600
        let connection: BLEConnection = scheduler.queue.sync { BLEConnection(transport: transport, scheduler: scheduler) }
        func pump() {
            while stream.sent < total, connection.canSendWriteWithoutResponse {
                var value = [UInt8](repeating: UInt8(truncatingIfNeeded: stream.sent), count: 244)
                value[0] = UInt8(stream.sent >> 8)
                value[1] = UInt8(truncatingIfNeeded: stream.sent)
                do { try connection.writeWithoutResponse(value, to: Session.rx) } catch {
                    stream.refusals += 1
                    return
                }
                stream.sent += 1
            }
        }
        scheduler.queue.sync {
            _ = connection.addObserver(ConnectionObserver(
                stateChanged: { state in
                    if state.name == "ready" {
                        stream.ready = true
                        pump()
                    }
                },
                valueReceived: { uuid, _ in if uuid == Session.tx { stream.echoes += 1 } },
                readyToWrite: { pump() }))
        }
        let profile = GATTProfile(service: Session.service, characteristics: [Session.rx], notifying: [Session.tx])
        let connectError: ConnectionError? = scheduler.queue.sync {
            do { try connection.connect(to: .service(profile)) } catch { return error as? ConnectionError }
            return nil
        }
        #expect(connectError == nil)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, scheduler.queue.sync(execute: { stream.echoes < total }) { Thread.sleep(forTimeInterval: 0.02) }
        scheduler.queue.sync {
            #expect(stream.sent == total)
            #expect(stream.refusals == 0)
            #expect(stream.echoes == total)
            // The controller's 64 buffers were the limit, never exceeded.
            #expect(transport.host.statistics.maximumACLInFlight <= transport.host.aclBufferCount)
        }
        let writes = peer.log.filter { $0.hasPrefix("WRITE 244 ") }
        #expect(writes.count == total)
        // In order: the first two bytes count up.
        #expect(writes.map { String($0.dropFirst(10).prefix(4)) } == (0..<total).map { String(format: "%04x", $0) })
        scheduler.queue.sync { connection.disconnect() }
        scheduler.queue.sync { transport.host.close() }
    }
}
