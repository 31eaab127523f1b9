#if canImport(Glibc)
import Foundation
import VigilBLE
import VigilBLEHost

/// VigilBLE on ``HostTransport`` for the command line: a controller reached through an
/// ``HCIEndpoint`` (`tcp:HOST:PORT`, `unix:PATH`, `hci:N`), one ``BLEConnection`` on it, and
/// blocking waits for what the commands need. Everything BLE runs on one dispatch queue; the
/// waits poll it from the calling thread.
final class BLEStackSession: @unchecked Sendable {
    let scheduler = DispatchLinkScheduler(queue: DispatchQueue(label: "vigil.ble.cli"))
    let transport: HostTransport
    let connection: BLEConnection
    private let powered = ResultBox<Result<Void, HostError>>()

    /// Opens `endpoint` and initialises the controller (throws when either fails within 10 s).
    init(endpoint: HCIEndpoint, connection configuration: ConnectionConfiguration = ConnectionConfiguration()) throws {
        let powered = self.powered
        do {
            transport = try HostTransport.open(endpoint, scheduler: scheduler) { powered.set($0) }
        } catch {
            throw BLEStackSessionError("cannot open \(endpoint): \(error)")
        }
        let transport = self.transport
        let scheduler = self.scheduler
        connection = scheduler.queue.sync { BLEConnection(transport: transport, scheduler: scheduler, configuration: configuration) }
        switch try wait("the controller to initialise", seconds: 10, { powered.value }) {
        case .success: break
        case .failure(let error): throw BLEStackSessionError("the controller at \(endpoint) did not initialise: \(error)")
        }
    }

    /// Disconnects and closes the channel.
    func close() {
        let connection = self.connection
        let transport = self.transport
        scheduler.queue.sync {
            connection.disconnect()
            transport.host.close()
        }
    }

    /// Runs `body` on the BLE queue.
    func onQueue<T>(_ body: () throws -> T) rethrows -> T { try scheduler.queue.sync(execute: body) }

    /// Polls `probe` on the BLE queue every 5 ms until it yields a value, for at most `seconds`.
    func wait<T>(_ what: String, seconds: Double, _ probe: () -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let value = onQueue(probe) { return value }
            guard Date() < deadline else { throw BLEStackSessionError("timed out after \(Int(seconds)) s waiting for \(what)") }
            usleep(5_000)
        }
    }

    /// Connects with `target` and waits until the link is ready (or the attempt gave up).
    func connect(_ target: ConnectionTarget, seconds: Double = 30) throws {
        try onQueue { try connection.connect(to: target) }
        _ = try wait("the link", seconds: seconds) { () -> Bool? in
            if connection.state.isReady { return true }
            if case .idle = connection.state { return false }
            return nil
        }
        guard onQueue({ connection.state.isReady }) else {
            throw BLEStackSessionError("could not connect: \(onQueue { connection.lastError?.description } ?? "unknown error")")
        }
    }
}

/// A value handed from the BLE queue to the waiting thread.
final class ResultBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}

/// Why a BLE command could not use the stack.
struct BLEStackSessionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
