import Foundation
import Testing
import Vigil
import VigilCore
import VigilTestSupport

@Suite("JSON-lines file sink")
struct JSONLinesFileSinkTests {
    private func event(_ index: Int) -> Event {
        Event(time: Date(timeIntervalSince1970: 1_767_225_600 + Double(index)), session: UUID(),
              app: AppInfo(id: "dev.vigil.test", version: "1", build: "1"),
              device: DeviceInfo(model: "test", os: "Linux", osVersion: "6", arch: "x86_64"),
              payload: .log(LogPayload(level: .info, message: "event \(index)")))
    }

    @Test("writes one decodable event per line, appending across sinks on the same file")
    func roundTrip() throws {
        let directory = try TemporaryDirectory(prefix: "sink")
        let url = directory.file("nested/events.jsonl")
        let first = try JSONLinesFileSink(url: url)
        first.emit(event(1))
        first.close()
        let second = try JSONLinesFileSink(url: url)
        second.emit(event(2))
        second.emit(event(3))
        second.close()
        let decoded = try EventJSON.decodeBatch(Data(contentsOf: url)).map { try $0.get() }
        #expect(decoded.count == 3)
        #expect(decoded.map(\.time) == [1, 2, 3].map { event($0).time })
    }

    @Test("stops at its size bound and counts what it dropped instead of filling the disk")
    func bounded() throws {
        let directory = try TemporaryDirectory(prefix: "sink")
        let url = directory.file("events.jsonl")
        let probe = try EventJSON.encode(event(0)).count + 1
        let sink = try JSONLinesFileSink(url: url, maxBytes: UInt64(probe * 2 + probe / 2), truncate: true)
        for index in 0..<5 { sink.emit(event(index)) }
        #expect(sink.written == 2)
        #expect(sink.dropped == 3)
        sink.close()
        sink.emit(event(9))
        #expect(sink.dropped == 4, "a closed sink drops and counts")
    }

    @Test("a sink group delivers to every sink in order")
    func group() throws {
        let directory = try TemporaryDirectory(prefix: "sink")
        let a = try JSONLinesFileSink(url: directory.file("a.jsonl"))
        let b = try JSONLinesFileSink(url: directory.file("b.jsonl"))
        EventSinkGroup([a, b]).emit(event(7))
        #expect(a.written == 1 && b.written == 1)
    }

    @Test("an unwritable location is a clear error, not a trap")
    func unwritable() {
        #expect(throws: JSONLinesFileSink.OpenError.self) {
            _ = try JSONLinesFileSink(url: URL(fileURLWithPath: "/proc/vigil-cannot-write/events.jsonl"))
        }
    }
}
