#if canImport(UIKit)
import Foundation
import Vigil
import VigilBLE
import VigilBLESimulation

/// A card payment on a simulated BLE terminal: connect (link, open, device info, serial
/// number, trace number, the app's server check), then read a card. Every step is a span that
/// `Vigil.spanRecorder` turns into an event, so the whole BLE flow reads as one trace on the
/// server.
///
/// The simulated radio runs in virtual time (it finishes at once, its spans dated from now);
/// on a device, `CoreBluetoothTransport` with a `DispatchLinkScheduler` takes its place and the
/// rest of the code stays the same. Everything BLE runs on `queue`.
final class TerminalDemo: @unchecked Sendable {
    private let queue = DispatchQueue(label: "example.terminal")

    func pay(amountMinor: UInt64, completion: @escaping @MainActor @Sendable (String) -> Void) {
        queue.async {
            let outcome = self.runPayment(amountMinor: amountMinor)
            Task { @MainActor in completion(outcome) }
        }
    }

    private func runPayment(amountMinor: UInt64) -> String {
        let scheduler = VirtualTimeScheduler(clock: TestClock(wall: Date()))
        let transport = SimulatedTransport(scheduler: scheduler, parameters: SimulationParameters(), faults: .none, seed: 7)
        transport.add(FramedTerminalPeripheral())
        let tracer = LinkTracer(recorder: Vigil.spanRecorder, clock: scheduler.clock)
        let connection = BLEConnection(transport: transport, scheduler: scheduler, tracer: tracer)
        let terminal = PaymentTerminal(connection: connection) { _, answer in
            // The app's server approves the terminal 120 ms later.
            scheduler.schedule(afterMilliseconds: 120, label: "server check") { answer(.success(.approved)) }
        }
        let payment = tracer.startSpan("example.payment", parent: nil, attributes: ["payment.amount_minor": .int(Int64(amountMinor))])
        defer {
            terminal.disconnect()
            scheduler.runUntilIdle(timeLimitMs: 60_000)
        }

        var connected: Result<PaymentTerminal.Identity, PaymentTerminalError>?
        terminal.connect(trace: payment.context) { connected = $0 }
        scheduler.run(until: { connected != nil }, timeLimitMs: 120_000)
        guard case .success(let identity)? = connected, let adapter = terminal.adapter else {
            payment.end(status: .error, message: "\(String(describing: connected))")
            return "Terminal connection failed: \(connected.map { "\($0)" } ?? "timed out")"
        }

        var card: Result<CardTransactionResult, DeviceError>?
        adapter.startCardTransaction(CardTransactionRequest(amountMinor: amountMinor, currencyCode: 978),
                                     trace: payment.context) { card = $0 }
        scheduler.run(until: { card != nil }, timeLimitMs: 120_000)
        payment.end(card ?? .failure(.cancelled(command: TerminalCommand.startCardTransaction.rawValue)))
        switch card {
        case .success(let result)?:
            return "Paid on \(identity.info.model) \(identity.serialNumber) with card \(result.maskedPAN): spans are on their way."
        case .failure(let error)?:
            return "Card transaction failed: \(error)"
        case nil:
            return "Card transaction timed out"
        }
    }
}
#endif
