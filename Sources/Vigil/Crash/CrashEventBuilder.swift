import Foundation
import VigilCore
import VigilRuntime

/// Turns a verified raw crash report into the `crash` event (schema v1) of the session that
/// died: signal and code names, fault address, the runtime's message, every thread with the
/// crashed one first, the crashed thread's registers, and the images the stacks point into.
///
/// Pure: no I/O. The event id is derived from the report (session, checksum, crash instant),
/// so a report delivered twice (the app died between delivery and deletion) is the same event,
/// which the store and the server keep once.
enum CrashEventBuilder {
    static func event(from report: RawCrashReport, metadata: CrashSessionMetadata, fatalHang: Bool) -> Event {
        var threads: [CrashThread] = []
        if let crashed = report.crashedThread { threads.append(thread(crashed)) }
        threads += report.threads.filter { !$0.crashed }.map(thread)

        let registers = Dictionary(report.registers.map { ($0.name, Address($0.value)) }, uniquingKeysWith: { first, _ in first })
        let isFault = SignalDescription.isFault(code: report.code, signal: report.signal)
        var exception: CrashException?
        if let language = report.exception {
            // An uncaught NSException or C++ exception names the crash better than the abort it
            // ended in; the runtime message, if any, is kept in its reason.
            let runtime = report.message.map { "\n" + $0.text.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            exception = CrashException(type: language.type, reason: language.reason + runtime,
                                       frames: report.exceptionStack.isEmpty ? nil : report.exceptionStack.map(Address.init))
        } else if let message = report.message, !message.text.isEmpty {
            let text = message.text.trimmingCharacters(in: .whitespacesAndNewlines)
            exception = CrashException(type: message.kind == "swift" ? "Swift runtime failure" : message.kind, reason: text)
        }
        let termination = report.machException.map { String(format: "EXC %d (code 0x%llx, subcode 0x%llx)", $0.type, $0.code, $0.subcode) }
        let payload = CrashPayload(
            signal: SignalDescription.name(ofSignal: report.signal),
            code: SignalDescription.name(ofCode: report.code, signal: report.signal),
            faultAddress: isFault ? Address(report.faultAddress) : nil,
            exception: exception, threads: threads, registers: registers.isEmpty ? nil : registers,
            fatalHang: fatalHang, terminationReason: termination)

        let addresses = threads.flatMap(\.frames) + (exception?.frames ?? []) + ["rip", "pc", "lr"].compactMap { registers[$0] }
        return Event(id: eventID(report: report, session: metadata.session), time: report.time, session: metadata.session,
                     app: metadata.app, device: metadata.device, context: metadata.context, tags: metadata.tags,
                     images: images(of: report, containing: addresses), payload: .crash(payload))
    }

    private static func thread(_ thread: RawCrashReport.Thread) -> CrashThread {
        CrashThread(crashed: thread.crashed, name: thread.name.isEmpty ? nil : thread.name,
                    frames: thread.frames.map(Address.init))
    }

    /// The snapshot's and the late images that contain at least one of `addresses`, by address.
    static func images(of report: RawCrashReport, containing addresses: [Address]) -> [ImageInfo] {
        var all: [ImageInfo] = report.images.map { image in
            ImageInfo(name: name(of: image.path), id: imageID(image.buildID, operatingSystem: report.operatingSystem),
                      arch: report.architecture,
                      loadAddress: Address(image.loadAddress), size: image.size, path: image.path.isEmpty ? nil : image.path)
        }
        for late in report.lateImages where !all.contains(where: { $0.loadAddress.value == late.loadAddress }) {
            all.append(ImageInfo(name: name(of: late.path), id: "", arch: report.architecture,
                                 loadAddress: Address(late.loadAddress), size: late.size, path: late.path.isEmpty ? nil : late.path))
        }
        all.sort { $0.loadAddress < $1.loadAddress }
        var used = Set<Int>()
        for address in addresses {
            var low = 0
            var high = all.count
            while low < high {
                let middle = (low + high) / 2
                if all[middle].loadAddress <= address { low = middle + 1 } else { high = middle }
            }
            if low > 0, all[low - 1].contains(address) { used.insert(low - 1) }
        }
        return used.sorted().map { all[$0] }
    }

    /// GNU build ids stay lowercase hex; a Mach-O `LC_UUID` (16 bytes, Apple platforms) is
    /// written as the uppercase dashed UUID the schema uses for it.
    static func imageID(_ hex: String, operatingSystem: String) -> String {
        guard operatingSystem == "darwin", hex.count == 32 else { return hex }
        let upper = Array(hex.uppercased())
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(upper[$0]) }
        return groups.joined(separator: "-")
    }

    private static func name(of path: String) -> String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        return last.isEmpty ? "<unnamed>" : last
    }

    /// A UUID (version 8, "custom") from the session, the report's CRC and its monotonic instant.
    static func eventID(report: RawCrashReport, session: UUID) -> UUID {
        var bytes = session.uuid
        withUnsafeMutableBytes(of: &bytes) { raw in
            let crc = report.checksum
            for index in 0..<4 { raw[index] ^= UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(index))) }
            let instant = report.monotonicNanoseconds
            for index in 0..<8 { raw[8 + index] ^= UInt8(truncatingIfNeeded: instant >> (56 - 8 * UInt64(index))) }
            raw[6] = (raw[6] & 0x0F) | 0x80
            raw[8] = (raw[8] & 0x3F) | 0x80
        }
        return UUID(uuid: bytes)
    }
}
