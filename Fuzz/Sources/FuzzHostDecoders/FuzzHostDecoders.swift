import CFuzzDriver
import FuzzSupport
import VigilBLE
import VigilBLEHost
import VigilBLESimulation

/// Reads the input as an H4 byte stream from a controller (fed in chunks whose size the first
/// byte picks), decodes every event, rebuilds L2CAP PDUs from the ACL packets and decodes each
/// one as an LE signaling command, as advertising data and as a response to every kind of ATT
/// request: never a trap; the packets re-encode to exactly the bytes they were decoded from
/// (SCO and ISO excepted, whose headers carry flags the host drops); every ATT and GATT request made
/// while the PDUs are fed as responses completes exactly once, and none is left once the bearer
/// is closed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHostDecoders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let chunk = Int(first % 31) + 1
    var decoder = H4Decoder()
    var packets: [HCIPacket] = []
    var index = 1
    var failed = false
    while index < bytes.count, !failed {
        do { packets += try decoder.feed(bytes[index..<min(bytes.count, index + chunk)]) } catch {
            _ = error.description
            failed = true
        }
        index += chunk
    }
    // SCO and ISO headers carry flags the host does not keep (it never uses either).
    let keepsEveryBit = !packets.contains { packet in
        switch packet {
        case .sco, .iso: return true
        default: return false
        }
    }
    if !failed, keepsEveryBit {
        let encoded = packets.flatMap(\.h4Bytes)
        fuzzCheck(encoded == Array(bytes[1..<(bytes.count - decoder.pendingByteCount)]), "packets re-encode to other bytes")
    }
    var reassembler = L2CAPReassembler()
    var pdus: [[UInt8]] = []
    for packet in packets {
        switch packet {
        case .event(let code, let parameters): _ = try? HCIEvent.decode(code: code, parameters: parameters)
        case .acl(let acl): if let pdu = try? reassembler.add(acl) { pdus.append(pdu.payload) }
        default: break
        }
    }
    pdus.append(Array(bytes.dropFirst()))
    let scheduler = VirtualTimeScheduler()
    let att = ATTClient(scheduler: scheduler) { _ in }
    let gatt = GATTClient(att: att)
    var issued = 0
    var completed = 0
    let done: (Any) -> Void = { _ in completed += 1 }
    for pdu in pdus {
        _ = try? LESignalingCommand.decode(pdu)
        _ = AdvertisingData(pdu)
        gatt.discoverPrimaryServices { done($0) }
        att.readByType(start: 1, end: 0xFFFF, type: "2803") { done($0) }
        att.findInformation(start: 1, end: 0xFFFF) { done($0) }
        att.exchangeMTU(247) { done($0) }
        att.prepareWrite(handle: 1, offset: 0, part: [1]) { done($0) }
        issued += 5
        for _ in 0..<8 { att.receive(pdu) }
    }
    att.close()
    _ = scheduler.runUntilIdle()
    fuzzCheck(completed == issued, "\(issued) requests made, \(completed) completions")
    fuzzCheck(!att.isBusy && att.queuedRequestCount == 0, "requests left after close")
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzHostDecoders_main")
public func fuzzHostDecodersMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzHostDecoders(data, size)
    }
}
