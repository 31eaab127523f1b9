import CFuzzDriver
import Foundation
import VigilCore
import VigilStore

/// Writes the input as a segment file (the first 64 bytes also as its deletion journal), opens
/// a store on it and reads everything back: recovery must never trap, and every record it hands
/// out must be one it verified.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSegmentRecovery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let directory = URL(fileURLWithPath: NSTemporaryDirectory())
        .appendingPathComponent("vigil-fuzz-segment-\(getpid())", isDirectory: true)
    try? FileManager.default.removeItem(at: directory)
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try? bytes.write(to: directory.appendingPathComponent("seg-0000000000000001-00000000.vgs"))
    try? bytes.prefix(64).write(to: directory.appendingPathComponent("seg-0000000000000001-00000000.del"))
    let store = EventStore(directory: directory, configuration: StoreConfiguration(segmentByteLimit: 4096,
                                                                                  maximumRecordBytes: 4096),
                           clock: TestClock(), fileSystem: UnsyncedFileSystem())
    let records = store.nextBatch(maxEvents: Int.max, maxBytes: Int.max)
    for record in records where record.payload.isEmpty || record.payload.count > 4096 {
        fatalError("the store handed out a record it should have refused: \(record.payload.count) bytes")
    }
    _ = store.acknowledge(records.prefix(records.count / 2).map(\.handle))
    store.close()
    try? FileManager.default.removeItem(at: directory)
    return 0
}

/// The real file system without `fsync`: durability is not what this target checks, and a
/// sync per input would make it a hundred times slower.
struct UnsyncedFileSystem: StoreFileSystem {
    private let real = LocalFileSystem()
    func makeDirectory(_ path: String) throws(StoreIOError) { try real.makeDirectory(path) }
    func fileNames(in directory: String) throws(StoreIOError) -> [String] { try real.fileNames(in: directory) }
    func open(_ path: String, mode: StoreFileMode) throws(StoreIOError) -> Int32 { try real.open(path, mode: mode) }
    func read(_ descriptor: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(StoreIOError) -> Int {
        try real.read(descriptor, at: offset, into: buffer)
    }
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(StoreIOError) { try real.write(descriptor, bytes) }
    func sync(_ descriptor: Int32) throws(StoreIOError) {}
    func size(_ descriptor: Int32) throws(StoreIOError) -> Int { try real.size(descriptor) }
    func truncate(_ descriptor: Int32, to size: Int) throws(StoreIOError) { try real.truncate(descriptor, to: size) }
    func close(_ descriptor: Int32) { real.close(descriptor) }
    func rename(_ source: String, to destination: String) throws(StoreIOError) { try real.rename(source, to: destination) }
    func remove(_ path: String) { real.remove(path) }
    func lockExclusively(_ descriptor: Int32) -> Bool { real.lockExclusively(descriptor) }
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzSegmentRecovery_main")
public func fuzzSegmentRecoveryMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzSegmentRecovery(data, size)
    }
}
